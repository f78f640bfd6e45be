; Kernel launch sites. Macro bodies are token trees; analysis/launches.py re-parses them.

; offload! { kernel = .., workgroup_dim = .., thread_dim = .., args = (..) }
; launch!(module.kernel<<<grid, block, smem, stream>>>(args..))   (Rust-CUDA)
; cuda_launch! { kernel: k, stream: s, module: m, config: cfg, args: [..] }   (cuda-oxide)
(macro_invocation
  macro: [(identifier) @macro
          (scoped_identifier name: (identifier) @macro)]
  (#any-of? @macro "offload" "launch" "cuda_launch")
  (token_tree) @tokens) @launch

; core::intrinsics::offload(kernel, [..], [..], (args,))  (also std::intrinsics::, intrinsics::)
(call_expression
  function: (scoped_identifier name: (identifier) @fn (#eq? @fn "offload"))
  arguments: (arguments) @args) @call

; bare `offload(kernel, ..)` after `use core::intrinsics::offload;`
(call_expression
  function: (identifier) @fn (#eq? @fn "offload")
  arguments: (arguments) @args) @bare_call

; the same with a turbofish, as rustc's own tests write it:
; core::intrinsics::offload::<_, _, ()>(kernel, [..], [..], (args,))  and bare offload::<..>(..)
(call_expression
  function: (generic_function
    function: (scoped_identifier name: (identifier) @fn (#eq? @fn "offload")))
  arguments: (arguments) @args) @call

(call_expression
  function: (generic_function
    function: (identifier) @fn (#eq? @fn "offload"))
  arguments: (arguments) @args) @bare_call

; CubeCL: kernel::launch::<F, R>(&client, cube_count, cube_dim, args..), and launch_unchecked.
; Three arguments at least (client, cube count, cube dim) and a CubeDim/CubeCount-looking
; argument are checked in analysis/launches.py.
(call_expression
  function: [(scoped_identifier path: (_) @cube_path name: (identifier) @cube_fn)
             (generic_function
               function: (scoped_identifier path: (_) @cube_path name: (identifier) @cube_fn))]
  (#any-of? @cube_fn "launch" "launch_unchecked")
  arguments: (arguments) @cube_args) @cube_call

; krnl: kernels::k::builder()?.build(device)?.dispatch(args..)
(call_expression
  function: (field_expression field: (field_identifier) @krnl_method (#eq? @krnl_method "dispatch"))
  arguments: (arguments) @krnl_args) @krnl_dispatch

; wgpu: a compute pipeline's entry point names a rust-gpu shader: entry_point: Some("main_cs")
(field_initializer
  field: (field_identifier) @wgpu_field (#eq? @wgpu_field "entry_point")
  value: [(string_literal (string_content) @wgpu_name)
          (call_expression
            function: (identifier) @wgpu_some (#eq? @wgpu_some "Some")
            arguments: (arguments (string_literal (string_content) @wgpu_name)))]) @wgpu_entry
