; Comments that may hold `offload-ls: allow(<rule>, ..)` (only those that name offload-ls:
; a file's other comments, often thousands of doc comments, are not captured at all).
((line_comment) @comment (#match? @comment "offload-ls"))
((block_comment) @comment (#match? @comment "offload-ls"))
