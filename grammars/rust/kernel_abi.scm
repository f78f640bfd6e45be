; Functions with a GPU kernel ABI: extern "gpu-kernel" (rustc offload, #135467),
; extern "ptx-kernel" (older nvptx code), extern "amdgpu-kernel".
(function_item
  (function_modifiers
    (extern_modifier
      (string_literal (string_content) @abi
        (#any-of? @abi "gpu-kernel" "ptx-kernel" "amdgpu-kernel"))))) @fn
