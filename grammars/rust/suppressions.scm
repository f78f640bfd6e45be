; Comments that may hold `offload-ls: allow(<rule>, ..)`.
(line_comment) @comment
(block_comment) @comment
