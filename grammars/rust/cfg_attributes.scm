; #[cfg(..)] attributes; analysis/device_code.py decides whether the predicate selects
; device code (offload_device, target_arch = "nvptx64" / "amdgpu", target_os = "cuda" /
; "amdhsa") outside any not(..).
(attribute_item
  (attribute (identifier) @name (#eq? @name "cfg")
    arguments: (token_tree) @predicate)) @attr
