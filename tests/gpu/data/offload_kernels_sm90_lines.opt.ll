; ModuleID = '/work/main/examples/offload-kernels/target/offload-ls/asm/device-nvptx64-sm_90.opt.bc'
source_filename = "offload_kernels.4e2e8e3282dd8fde-cgu.0"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.fshl.i32(i32, i32, i32) #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() unnamed_addr #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() unnamed_addr #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() unnamed_addr #1

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #2

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite)
define dso_local ptx_kernel void @daxpy(ptr readnone captures(none) %dyn_ptr, ptr readonly captures(none) %arg0, ptr readonly captures(none) %arg1, ptr captures(none) %arg2) local_unnamed_addr #3 !dbg !7 {
entry:
  tail call void @llvm.experimental.noalias.scope.decl(metadata !13), !dbg !16
  tail call void @llvm.experimental.noalias.scope.decl(metadata !17), !dbg !16
  tail call void @llvm.experimental.noalias.scope.decl(metadata !19), !dbg !16
  %_7.i = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !21
  %_6.i = zext nneg i32 %_7.i to i64, !dbg !30
  %_9.i = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !31
  %_8.i = zext nneg i32 %_9.i to i64, !dbg !34
  %_5.i = mul nuw nsw i64 %_6.i, %_8.i, !dbg !30
  %_11.i = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !35
  %_10.i = zext nneg i32 %_11.i to i64, !dbg !38
  %i.i = add nuw nsw i64 %_5.i, %_10.i, !dbg !30
  %_12.i = icmp samesign ult i64 %i.i, 65536, !dbg !39
  br i1 %_12.i, label %bb1.i, label %daxpy.offload_inner.exit, !dbg !39

bb1.i:                                            ; preds = %entry
  %_13.i = load double, ptr %arg0, align 8, !dbg !41, !alias.scope !13, !noalias !42, !noundef !12
  %0 = getelementptr inbounds nuw double, ptr %arg1, i64 %i.i, !dbg !43
  %_15.i = load double, ptr %0, align 8, !dbg !43, !alias.scope !17, !noalias !46, !noundef !12
  %_14.i = fmul double %_13.i, %_15.i, !dbg !47
  %1 = getelementptr inbounds nuw double, ptr %arg2, i64 %i.i, !dbg !48
  %2 = load double, ptr %1, align 8, !dbg !48, !alias.scope !19, !noalias !49, !noundef !12
  %3 = fadd double %2, %_14.i, !dbg !48
  store double %3, ptr %1, align 8, !dbg !48, !alias.scope !19, !noalias !49
  br label %daxpy.offload_inner.exit, !dbg !50

daxpy.offload_inner.exit:                         ; preds = %entry, %bb1.i
  ret void
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite, inaccessiblemem: readwrite)
define dso_local ptx_kernel void @fir(ptr readnone captures(none) %dyn_ptr, ptr readonly captures(none) %arg0, ptr readonly captures(none) %arg1, ptr writeonly captures(none) %arg2) local_unnamed_addr #4 !dbg !51 {
entry:
  tail call void @llvm.experimental.noalias.scope.decl(metadata !52), !dbg !55
  tail call void @llvm.experimental.noalias.scope.decl(metadata !56), !dbg !55
  tail call void @llvm.experimental.noalias.scope.decl(metadata !58), !dbg !55
  %_7.i = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !60
  %_6.i = zext nneg i32 %_7.i to i64, !dbg !65
  %_9.i = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !66
  %_8.i = zext nneg i32 %_9.i to i64, !dbg !69
  %_5.i = mul nuw nsw i64 %_6.i, %_8.i, !dbg !65
  %_11.i = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !70
  %_10.i = zext nneg i32 %_11.i to i64, !dbg !73
  %i.i = add nuw nsw i64 %_5.i, %_10.i, !dbg !65
  %_12.i = icmp samesign ult i64 %i.i, 65536, !dbg !74
  br i1 %_12.i, label %bb1.i, label %fir.offload_inner.exit, !dbg !74

bb1.i:                                            ; preds = %entry
  tail call void @llvm.experimental.noalias.scope.decl(metadata !76), !dbg !79
  tail call void @llvm.experimental.noalias.scope.decl(metadata !80), !dbg !79
  tail call void @llvm.experimental.noalias.scope.decl(metadata !82), !dbg !79
  %_10.i.i = load float, ptr %arg0, align 4, !dbg !84, !alias.scope !90, !noalias !91, !noundef !12
  %0 = getelementptr float, ptr %arg1, i64 %i.i, !dbg !92
  %_12.i.i = load float, ptr %0, align 4, !dbg !92, !alias.scope !93, !noalias !94, !noundef !12
  %_9.i.i = fmul float %_10.i.i, %_12.i.i, !dbg !84
  %1 = fadd float %_9.i.i, 0.000000e+00, !dbg !95
  %_8.not.i.1.i = icmp eq i64 %i.i, 0, !dbg !96
  br i1 %_8.not.i.1.i, label %bb5.i.1.i, label %bb3.i.1.i, !dbg !96

bb3.i.1.i:                                        ; preds = %bb1.i
  %2 = getelementptr i8, ptr %0, i64 -4
  %3 = getelementptr inbounds nuw i8, ptr %arg0, i64 4
  %_10.i.1.i = load float, ptr %3, align 4, !dbg !84, !alias.scope !90, !noalias !91, !noundef !12
  %_12.i.1.i = load float, ptr %2, align 4, !dbg !92, !alias.scope !93, !noalias !94, !noundef !12
  %_9.i.1.i = fmul float %_10.i.1.i, %_12.i.1.i, !dbg !84
  %4 = fadd float %1, %_9.i.1.i, !dbg !95
  br label %bb5.i.1.i, !dbg !97

bb5.i.1.i:                                        ; preds = %bb3.i.1.i, %bb1.i
  %acc.sroa.0.1.i.1.i = phi float [ %4, %bb3.i.1.i ], [ %1, %bb1.i ], !dbg !98
  %_8.not.i.2.i = icmp samesign ult i64 %i.i, 2, !dbg !96
  br i1 %_8.not.i.2.i, label %bb5.i.2.i, label %bb3.i.2.i, !dbg !96

bb3.i.2.i:                                        ; preds = %bb5.i.1.i
  %5 = getelementptr i8, ptr %0, i64 -8
  %6 = getelementptr inbounds nuw i8, ptr %arg0, i64 8
  %_10.i.2.i = load float, ptr %6, align 4, !dbg !84, !alias.scope !90, !noalias !91, !noundef !12
  %_12.i.2.i = load float, ptr %5, align 4, !dbg !92, !alias.scope !93, !noalias !94, !noundef !12
  %_9.i.2.i = fmul float %_10.i.2.i, %_12.i.2.i, !dbg !84
  %7 = fadd float %acc.sroa.0.1.i.1.i, %_9.i.2.i, !dbg !95
  br label %bb5.i.2.i, !dbg !97

bb5.i.2.i:                                        ; preds = %bb3.i.2.i, %bb5.i.1.i
  %acc.sroa.0.1.i.2.i = phi float [ %7, %bb3.i.2.i ], [ %acc.sroa.0.1.i.1.i, %bb5.i.1.i ], !dbg !98
  %_8.not.i.3.i = icmp samesign ult i64 %i.i, 3, !dbg !96
  br i1 %_8.not.i.3.i, label %bb5.i.3.i, label %bb3.i.3.i, !dbg !96

bb3.i.3.i:                                        ; preds = %bb5.i.2.i
  %8 = getelementptr i8, ptr %0, i64 -12
  %9 = getelementptr inbounds nuw i8, ptr %arg0, i64 12
  %_10.i.3.i = load float, ptr %9, align 4, !dbg !84, !alias.scope !90, !noalias !91, !noundef !12
  %_12.i.3.i = load float, ptr %8, align 4, !dbg !92, !alias.scope !93, !noalias !94, !noundef !12
  %_9.i.3.i = fmul float %_10.i.3.i, %_12.i.3.i, !dbg !84
  %10 = fadd float %acc.sroa.0.1.i.2.i, %_9.i.3.i, !dbg !95
  br label %bb5.i.3.i, !dbg !97

bb5.i.3.i:                                        ; preds = %bb3.i.3.i, %bb5.i.2.i
  %acc.sroa.0.1.i.3.i = phi float [ %10, %bb3.i.3.i ], [ %acc.sroa.0.1.i.2.i, %bb5.i.2.i ], !dbg !98
  %_8.not.i.4.i = icmp samesign ult i64 %i.i, 4, !dbg !96
  br i1 %_8.not.i.4.i, label %bb5.i.4.i, label %bb3.i.4.i, !dbg !96

bb3.i.4.i:                                        ; preds = %bb5.i.3.i
  %11 = getelementptr i8, ptr %0, i64 -16
  %12 = getelementptr inbounds nuw i8, ptr %arg0, i64 16
  %_10.i.4.i = load float, ptr %12, align 4, !dbg !84, !alias.scope !90, !noalias !91, !noundef !12
  %_12.i.4.i = load float, ptr %11, align 4, !dbg !92, !alias.scope !93, !noalias !94, !noundef !12
  %_9.i.4.i = fmul float %_10.i.4.i, %_12.i.4.i, !dbg !84
  %13 = fadd float %acc.sroa.0.1.i.3.i, %_9.i.4.i, !dbg !95
  br label %bb5.i.4.i, !dbg !97

bb5.i.4.i:                                        ; preds = %bb3.i.4.i, %bb5.i.3.i
  %acc.sroa.0.1.i.4.i = phi float [ %13, %bb3.i.4.i ], [ %acc.sroa.0.1.i.3.i, %bb5.i.3.i ], !dbg !98
  %_8.not.i.5.i = icmp samesign ult i64 %i.i, 5, !dbg !96
  br i1 %_8.not.i.5.i, label %bb5.i.5.i, label %bb3.i.5.i, !dbg !96

bb3.i.5.i:                                        ; preds = %bb5.i.4.i
  %14 = getelementptr i8, ptr %0, i64 -20
  %15 = getelementptr inbounds nuw i8, ptr %arg0, i64 20
  %_10.i.5.i = load float, ptr %15, align 4, !dbg !84, !alias.scope !90, !noalias !91, !noundef !12
  %_12.i.5.i = load float, ptr %14, align 4, !dbg !92, !alias.scope !93, !noalias !94, !noundef !12
  %_9.i.5.i = fmul float %_10.i.5.i, %_12.i.5.i, !dbg !84
  %16 = fadd float %acc.sroa.0.1.i.4.i, %_9.i.5.i, !dbg !95
  br label %bb5.i.5.i, !dbg !97

bb5.i.5.i:                                        ; preds = %bb3.i.5.i, %bb5.i.4.i
  %acc.sroa.0.1.i.5.i = phi float [ %16, %bb3.i.5.i ], [ %acc.sroa.0.1.i.4.i, %bb5.i.4.i ], !dbg !98
  %_8.not.i.6.i = icmp samesign ult i64 %i.i, 6, !dbg !96
  br i1 %_8.not.i.6.i, label %bb5.i.6.i, label %bb3.i.6.i, !dbg !96

bb3.i.6.i:                                        ; preds = %bb5.i.5.i
  %17 = getelementptr i8, ptr %0, i64 -24
  %18 = getelementptr inbounds nuw i8, ptr %arg0, i64 24
  %_10.i.6.i = load float, ptr %18, align 4, !dbg !84, !alias.scope !90, !noalias !91, !noundef !12
  %_12.i.6.i = load float, ptr %17, align 4, !dbg !92, !alias.scope !93, !noalias !94, !noundef !12
  %_9.i.6.i = fmul float %_10.i.6.i, %_12.i.6.i, !dbg !84
  %19 = fadd float %acc.sroa.0.1.i.5.i, %_9.i.6.i, !dbg !95
  br label %bb5.i.6.i, !dbg !97

bb5.i.6.i:                                        ; preds = %bb3.i.6.i, %bb5.i.5.i
  %acc.sroa.0.1.i.6.i = phi float [ %19, %bb3.i.6.i ], [ %acc.sroa.0.1.i.5.i, %bb5.i.5.i ], !dbg !98
  %_8.not.i.7.i = icmp samesign ult i64 %i.i, 7, !dbg !96
  br i1 %_8.not.i.7.i, label %bb5.i.7.i, label %bb3.i.7.i, !dbg !96

bb3.i.7.i:                                        ; preds = %bb5.i.6.i
  %20 = getelementptr i8, ptr %0, i64 -28
  %21 = getelementptr inbounds nuw i8, ptr %arg0, i64 28
  %_10.i.7.i = load float, ptr %21, align 4, !dbg !84, !alias.scope !90, !noalias !91, !noundef !12
  %_12.i.7.i = load float, ptr %20, align 4, !dbg !92, !alias.scope !93, !noalias !94, !noundef !12
  %_9.i.7.i = fmul float %_10.i.7.i, %_12.i.7.i, !dbg !84
  %22 = fadd float %acc.sroa.0.1.i.6.i, %_9.i.7.i, !dbg !95
  br label %bb5.i.7.i, !dbg !97

bb5.i.7.i:                                        ; preds = %bb3.i.7.i, %bb5.i.6.i
  %acc.sroa.0.1.i.7.i = phi float [ %22, %bb3.i.7.i ], [ %acc.sroa.0.1.i.6.i, %bb5.i.6.i ], !dbg !98
  %_8.not.i.8.i = icmp samesign ult i64 %i.i, 8, !dbg !96
  br i1 %_8.not.i.8.i, label %bb5.i.8.i, label %bb3.i.8.i, !dbg !96

bb3.i.8.i:                                        ; preds = %bb5.i.7.i
  %23 = getelementptr i8, ptr %0, i64 -32
  %24 = getelementptr inbounds nuw i8, ptr %arg0, i64 32
  %_10.i.8.i = load float, ptr %24, align 4, !dbg !84, !alias.scope !90, !noalias !91, !noundef !12
  %_12.i.8.i = load float, ptr %23, align 4, !dbg !92, !alias.scope !93, !noalias !94, !noundef !12
  %_9.i.8.i = fmul float %_10.i.8.i, %_12.i.8.i, !dbg !84
  %25 = fadd float %acc.sroa.0.1.i.7.i, %_9.i.8.i, !dbg !95
  br label %bb5.i.8.i, !dbg !97

bb5.i.8.i:                                        ; preds = %bb3.i.8.i, %bb5.i.7.i
  %acc.sroa.0.1.i.8.i = phi float [ %25, %bb3.i.8.i ], [ %acc.sroa.0.1.i.7.i, %bb5.i.7.i ], !dbg !98
  %_8.not.i.9.i = icmp samesign ult i64 %i.i, 9, !dbg !96
  br i1 %_8.not.i.9.i, label %bb5.i.9.i, label %bb3.i.9.i, !dbg !96

bb3.i.9.i:                                        ; preds = %bb5.i.8.i
  %26 = getelementptr i8, ptr %0, i64 -36
  %27 = getelementptr inbounds nuw i8, ptr %arg0, i64 36
  %_10.i.9.i = load float, ptr %27, align 4, !dbg !84, !alias.scope !90, !noalias !91, !noundef !12
  %_12.i.9.i = load float, ptr %26, align 4, !dbg !92, !alias.scope !93, !noalias !94, !noundef !12
  %_9.i.9.i = fmul float %_10.i.9.i, %_12.i.9.i, !dbg !84
  %28 = fadd float %acc.sroa.0.1.i.8.i, %_9.i.9.i, !dbg !95
  br label %bb5.i.9.i, !dbg !97

bb5.i.9.i:                                        ; preds = %bb3.i.9.i, %bb5.i.8.i
  %acc.sroa.0.1.i.9.i = phi float [ %28, %bb3.i.9.i ], [ %acc.sroa.0.1.i.8.i, %bb5.i.8.i ], !dbg !98
  %_8.not.i.10.i = icmp samesign ult i64 %i.i, 10, !dbg !96
  br i1 %_8.not.i.10.i, label %bb5.i.10.i, label %bb3.i.10.i, !dbg !96

bb3.i.10.i:                                       ; preds = %bb5.i.9.i
  %29 = getelementptr i8, ptr %0, i64 -40
  %30 = getelementptr inbounds nuw i8, ptr %arg0, i64 40
  %_10.i.10.i = load float, ptr %30, align 4, !dbg !84, !alias.scope !90, !noalias !91, !noundef !12
  %_12.i.10.i = load float, ptr %29, align 4, !dbg !92, !alias.scope !93, !noalias !94, !noundef !12
  %_9.i.10.i = fmul float %_10.i.10.i, %_12.i.10.i, !dbg !84
  %31 = fadd float %acc.sroa.0.1.i.9.i, %_9.i.10.i, !dbg !95
  br label %bb5.i.10.i, !dbg !97

bb5.i.10.i:                                       ; preds = %bb3.i.10.i, %bb5.i.9.i
  %acc.sroa.0.1.i.10.i = phi float [ %31, %bb3.i.10.i ], [ %acc.sroa.0.1.i.9.i, %bb5.i.9.i ], !dbg !98
  %_8.not.i.11.i = icmp samesign ult i64 %i.i, 11, !dbg !96
  br i1 %_8.not.i.11.i, label %bb5.i.11.i, label %bb3.i.11.i, !dbg !96

bb3.i.11.i:                                       ; preds = %bb5.i.10.i
  %32 = getelementptr i8, ptr %0, i64 -44
  %33 = getelementptr inbounds nuw i8, ptr %arg0, i64 44
  %_10.i.11.i = load float, ptr %33, align 4, !dbg !84, !alias.scope !90, !noalias !91, !noundef !12
  %_12.i.11.i = load float, ptr %32, align 4, !dbg !92, !alias.scope !93, !noalias !94, !noundef !12
  %_9.i.11.i = fmul float %_10.i.11.i, %_12.i.11.i, !dbg !84
  %34 = fadd float %acc.sroa.0.1.i.10.i, %_9.i.11.i, !dbg !95
  br label %bb5.i.11.i, !dbg !97

bb5.i.11.i:                                       ; preds = %bb3.i.11.i, %bb5.i.10.i
  %acc.sroa.0.1.i.11.i = phi float [ %34, %bb3.i.11.i ], [ %acc.sroa.0.1.i.10.i, %bb5.i.10.i ], !dbg !98
  %_8.not.i.12.i = icmp samesign ult i64 %i.i, 12, !dbg !96
  br i1 %_8.not.i.12.i, label %bb5.i.12.i, label %bb3.i.12.i, !dbg !96

bb3.i.12.i:                                       ; preds = %bb5.i.11.i
  %35 = getelementptr i8, ptr %0, i64 -48
  %36 = getelementptr inbounds nuw i8, ptr %arg0, i64 48
  %_10.i.12.i = load float, ptr %36, align 4, !dbg !84, !alias.scope !90, !noalias !91, !noundef !12
  %_12.i.12.i = load float, ptr %35, align 4, !dbg !92, !alias.scope !93, !noalias !94, !noundef !12
  %_9.i.12.i = fmul float %_10.i.12.i, %_12.i.12.i, !dbg !84
  %37 = fadd float %acc.sroa.0.1.i.11.i, %_9.i.12.i, !dbg !95
  br label %bb5.i.12.i, !dbg !97

bb5.i.12.i:                                       ; preds = %bb3.i.12.i, %bb5.i.11.i
  %acc.sroa.0.1.i.12.i = phi float [ %37, %bb3.i.12.i ], [ %acc.sroa.0.1.i.11.i, %bb5.i.11.i ], !dbg !98
  %_8.not.i.13.i = icmp samesign ult i64 %i.i, 13, !dbg !96
  br i1 %_8.not.i.13.i, label %bb5.i.13.i, label %bb3.i.13.i, !dbg !96

bb3.i.13.i:                                       ; preds = %bb5.i.12.i
  %38 = getelementptr i8, ptr %0, i64 -52
  %39 = getelementptr inbounds nuw i8, ptr %arg0, i64 52
  %_10.i.13.i = load float, ptr %39, align 4, !dbg !84, !alias.scope !90, !noalias !91, !noundef !12
  %_12.i.13.i = load float, ptr %38, align 4, !dbg !92, !alias.scope !93, !noalias !94, !noundef !12
  %_9.i.13.i = fmul float %_10.i.13.i, %_12.i.13.i, !dbg !84
  %40 = fadd float %acc.sroa.0.1.i.12.i, %_9.i.13.i, !dbg !95
  br label %bb5.i.13.i, !dbg !97

bb5.i.13.i:                                       ; preds = %bb3.i.13.i, %bb5.i.12.i
  %acc.sroa.0.1.i.13.i = phi float [ %40, %bb3.i.13.i ], [ %acc.sroa.0.1.i.12.i, %bb5.i.12.i ], !dbg !98
  %_8.not.i.14.i = icmp samesign ult i64 %i.i, 14, !dbg !96
  br i1 %_8.not.i.14.i, label %bb5.i.14.i, label %bb3.i.14.i, !dbg !96

bb3.i.14.i:                                       ; preds = %bb5.i.13.i
  %41 = getelementptr i8, ptr %0, i64 -56
  %42 = getelementptr inbounds nuw i8, ptr %arg0, i64 56
  %_10.i.14.i = load float, ptr %42, align 4, !dbg !84, !alias.scope !90, !noalias !91, !noundef !12
  %_12.i.14.i = load float, ptr %41, align 4, !dbg !92, !alias.scope !93, !noalias !94, !noundef !12
  %_9.i.14.i = fmul float %_10.i.14.i, %_12.i.14.i, !dbg !84
  %43 = fadd float %acc.sroa.0.1.i.13.i, %_9.i.14.i, !dbg !95
  br label %bb5.i.14.i, !dbg !97

bb5.i.14.i:                                       ; preds = %bb3.i.14.i, %bb5.i.13.i
  %acc.sroa.0.1.i.14.i = phi float [ %43, %bb3.i.14.i ], [ %acc.sroa.0.1.i.13.i, %bb5.i.13.i ], !dbg !98
  %_8.not.i.15.i = icmp samesign ult i64 %i.i, 15, !dbg !96
  br i1 %_8.not.i.15.i, label %bb5.i.15.i, label %bb3.i.15.i, !dbg !96

bb3.i.15.i:                                       ; preds = %bb5.i.14.i
  %44 = getelementptr i8, ptr %0, i64 -60
  %45 = getelementptr inbounds nuw i8, ptr %arg0, i64 60
  %_10.i.15.i = load float, ptr %45, align 4, !dbg !84, !alias.scope !90, !noalias !91, !noundef !12
  %_12.i.15.i = load float, ptr %44, align 4, !dbg !92, !alias.scope !93, !noalias !94, !noundef !12
  %_9.i.15.i = fmul float %_10.i.15.i, %_12.i.15.i, !dbg !84
  %46 = fadd float %acc.sroa.0.1.i.14.i, %_9.i.15.i, !dbg !95
  br label %bb5.i.15.i, !dbg !97

bb5.i.15.i:                                       ; preds = %bb3.i.15.i, %bb5.i.14.i
  %acc.sroa.0.1.i.15.i = phi float [ %46, %bb3.i.15.i ], [ %acc.sroa.0.1.i.14.i, %bb5.i.14.i ], !dbg !98
  %47 = getelementptr inbounds nuw float, ptr %arg2, i64 %i.i, !dbg !99
  store float %acc.sroa.0.1.i.15.i, ptr %47, align 4, !dbg !99, !alias.scope !100, !noalias !101
  br label %fir.offload_inner.exit, !dbg !79

fir.offload_inner.exit:                           ; preds = %entry, %bb5.i.15.i
  ret void
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite)
define dso_local ptx_kernel void @hash_u32(ptr readnone captures(none) %dyn_ptr, ptr readonly captures(none) %arg0, ptr writeonly captures(none) %arg1) local_unnamed_addr #3 !dbg !102 {
entry:
  tail call void @llvm.experimental.noalias.scope.decl(metadata !103), !dbg !106
  tail call void @llvm.experimental.noalias.scope.decl(metadata !107), !dbg !106
  %_6.i = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !109
  %_5.i = zext nneg i32 %_6.i to i64, !dbg !114
  %_8.i = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !115
  %_7.i = zext nneg i32 %_8.i to i64, !dbg !118
  %_4.i = mul nuw nsw i64 %_5.i, %_7.i, !dbg !114
  %_10.i = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !119
  %_9.i = zext nneg i32 %_10.i to i64, !dbg !122
  %i.i = add nuw nsw i64 %_4.i, %_9.i, !dbg !114
  %_11.i = icmp samesign ult i64 %i.i, 50000, !dbg !123
  br i1 %_11.i, label %bb6.i, label %hash_u32.offload_inner.exit, !dbg !123

bb6.i:                                            ; preds = %entry
  %0 = getelementptr inbounds nuw i32, ptr %arg0, i64 %i.i, !dbg !125
  %_14.i = load i32, ptr %0, align 4, !dbg !125, !alias.scope !103, !noalias !107, !noundef !12
  %_13.i = mul i32 %_14.i, -1640531535, !dbg !128
  %1 = tail call noundef i32 @llvm.fshl.i32(i32 %_13.i, i32 %_13.i, i32 13), !dbg !134
  %_16.i = trunc nuw nsw i64 %i.i to i32, !dbg !141
  %2 = getelementptr inbounds nuw i32, ptr %arg1, i64 %i.i, !dbg !142
  %3 = xor i32 %1, %_16.i, !dbg !142
  store i32 %3, ptr %2, align 4, !dbg !142, !alias.scope !107, !noalias !103
  br label %hash_u32.offload_inner.exit, !dbg !143

hash_u32.offload_inner.exit:                      ; preds = %entry, %bb6.i
  ret void
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite)
define dso_local ptx_kernel void @saxpy(ptr readnone captures(none) %dyn_ptr, ptr readonly captures(none) %arg0, ptr readonly captures(none) %arg1, ptr captures(none) %arg2) local_unnamed_addr #3 !dbg !144 {
entry:
  tail call void @llvm.experimental.noalias.scope.decl(metadata !145), !dbg !148
  tail call void @llvm.experimental.noalias.scope.decl(metadata !149), !dbg !148
  tail call void @llvm.experimental.noalias.scope.decl(metadata !151), !dbg !148
  %_7.i = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !153
  %_6.i = zext nneg i32 %_7.i to i64, !dbg !158
  %_9.i = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !159
  %_8.i = zext nneg i32 %_9.i to i64, !dbg !162
  %_5.i = mul nuw nsw i64 %_6.i, %_8.i, !dbg !158
  %_11.i = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !163
  %_10.i = zext nneg i32 %_11.i to i64, !dbg !166
  %i.i = add nuw nsw i64 %_5.i, %_10.i, !dbg !158
  %_12.i = icmp samesign ult i64 %i.i, 65536, !dbg !167
  br i1 %_12.i, label %bb1.i, label %saxpy.offload_inner.exit, !dbg !167

bb1.i:                                            ; preds = %entry
  %_13.i = load float, ptr %arg0, align 4, !dbg !169, !alias.scope !145, !noalias !170, !noundef !12
  %0 = getelementptr inbounds nuw float, ptr %arg1, i64 %i.i, !dbg !171
  %_15.i = load float, ptr %0, align 4, !dbg !171, !alias.scope !149, !noalias !174, !noundef !12
  %_14.i = fmul float %_13.i, %_15.i, !dbg !175
  %1 = getelementptr inbounds nuw float, ptr %arg2, i64 %i.i, !dbg !176
  %_17.i = load float, ptr %1, align 4, !dbg !176, !alias.scope !151, !noalias !177, !noundef !12
  %2 = fadd float %_14.i, %_17.i, !dbg !178
  store float %2, ptr %1, align 4, !dbg !178, !alias.scope !151, !noalias !177
  br label %saxpy.offload_inner.exit, !dbg !179

saxpy.offload_inner.exit:                         ; preds = %entry, %bb1.i
  ret void
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite)
define dso_local ptx_kernel void @triad(ptr readnone captures(none) %dyn_ptr, ptr writeonly captures(none) %arg0, ptr readonly captures(none) %arg1, ptr readonly captures(none) %arg2, ptr readonly captures(none) %arg3) local_unnamed_addr #3 !dbg !180 {
entry:
  tail call void @llvm.experimental.noalias.scope.decl(metadata !181), !dbg !184
  tail call void @llvm.experimental.noalias.scope.decl(metadata !185), !dbg !184
  tail call void @llvm.experimental.noalias.scope.decl(metadata !187), !dbg !184
  tail call void @llvm.experimental.noalias.scope.decl(metadata !189), !dbg !184
  %_8.i = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !191
  %_7.i = zext nneg i32 %_8.i to i64, !dbg !196
  %_10.i = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !197
  %_9.i = zext nneg i32 %_10.i to i64, !dbg !200
  %_6.i = mul nuw nsw i64 %_7.i, %_9.i, !dbg !196
  %_12.i = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !201
  %_11.i = zext nneg i32 %_12.i to i64, !dbg !204
  %i.i = add nuw nsw i64 %_6.i, %_11.i, !dbg !196
  %_13.i = icmp samesign ult i64 %i.i, 65536, !dbg !205
  br i1 %_13.i, label %bb1.i, label %triad.offload_inner.exit, !dbg !205

bb1.i:                                            ; preds = %entry
  %_14.i = load double, ptr %arg3, align 8, !dbg !207, !alias.scope !189, !noalias !208, !noundef !12
  %0 = getelementptr inbounds nuw double, ptr %arg1, i64 %i.i, !dbg !209
  %_15.i = load double, ptr %0, align 8, !dbg !209, !alias.scope !185, !noalias !212, !noundef !12
  %1 = getelementptr inbounds nuw double, ptr %arg2, i64 %i.i, !dbg !213
  %_18.i = load double, ptr %1, align 8, !dbg !213, !alias.scope !187, !noalias !214, !noundef !12
  %_17.i = fmul double %_14.i, %_18.i, !dbg !215
  %2 = getelementptr inbounds nuw double, ptr %arg0, i64 %i.i, !dbg !216
  %3 = fadd double %_15.i, %_17.i, !dbg !216
  store double %3, ptr %2, align 8, !dbg !216, !alias.scope !181, !noalias !217
  br label %triad.offload_inner.exit, !dbg !218

triad.offload_inner.exit:                         ; preds = %entry, %bb1.i
  ret void
}

attributes #0 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }
attributes #3 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) "target-cpu"="sm_90" }
attributes #4 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite, inaccessiblemem: readwrite) "target-cpu"="sm_90" }

!llvm.module.flags = !{!0, !1, !2, !3}
!llvm.ident = !{!4}
!llvm.dbg.cu = !{!5}

!0 = !{i32 8, !"PIC Level", i32 2}
!1 = !{i32 7, !"PIE Level", i32 2}
!2 = !{i32 7, !"Dwarf Version", i32 4}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{!"rustc version 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball)"}
!5 = distinct !DICompileUnit(language: DW_LANG_Rust, file: !6, producer: "clang LLVM (rustc version 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball))", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly, splitDebugInlining: false, nameTableKind: None)
!6 = !DIFile(filename: "src/main.rs/@/offload_kernels.4e2e8e3282dd8fde-cgu.0", directory: "/work/main/examples/offload-kernels")
!7 = distinct !DISubprogram(name: "daxpy", scope: !9, file: !8, line: 106, type: !11, scopeLine: 106, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!8 = !DIFile(filename: "src/main.rs", directory: "/work/main/examples/offload-kernels", checksumkind: CSK_MD5, checksum: "3015d6218869d97988abc5f865f870cd")
!9 = !DINamespace(name: "device", scope: !10)
!10 = !DINamespace(name: "offload_kernels", scope: null)
!11 = !DISubroutineType(types: !12)
!12 = !{}
!13 = !{!14}
!14 = distinct !{!14, !15, !"daxpy.offload_inner: %a"}
!15 = distinct !{!15, !"daxpy.offload_inner"}
!16 = !DILocation(line: 106, column: 1, scope: !7)
!17 = !{!18}
!18 = distinct !{!18, !15, !"daxpy.offload_inner: %x"}
!19 = !{!20}
!20 = distinct !{!20, !15, !"daxpy.offload_inner: %y"}
!21 = !DILocation(line: 83, column: 5, scope: !22, inlinedAt: !27)
!22 = distinct !DISubprogram(name: "_block_idx_x", linkageName: "_RNvNtNtCsanIojcP8aaR_4core9core_arch5nvptx12__block_idx_x", scope: !24, file: !23, line: 82, type: !11, scopeLine: 82, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!23 = !DIFile(filename: "/usr/lib/rustlib/src/rust/library/core/src/../../stdarch/crates/core_arch/src/nvptx/mod.rs", directory: "", checksumkind: CSK_MD5, checksum: "16a4dad78f062ae677bda6260d25b363")
!24 = !DINamespace(name: "nvptx", scope: !25)
!25 = !DINamespace(name: "core_arch", scope: !26)
!26 = !DINamespace(name: "core", scope: null)
!27 = distinct !DILocation(line: 107, column: 27, scope: !28, inlinedAt: !29)
!28 = distinct !DISubprogram(name: "daxpy", scope: !9, file: !8, line: 106, type: !11, scopeLine: 106, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!29 = distinct !DILocation(line: 106, column: 1, scope: !7)
!30 = !DILocation(line: 107, column: 26, scope: !28, inlinedAt: !29)
!31 = !DILocation(line: 62, column: 5, scope: !32, inlinedAt: !33)
!32 = distinct !DISubprogram(name: "_block_dim_x", linkageName: "_RNvNtNtCsanIojcP8aaR_4core9core_arch5nvptx12__block_dim_x", scope: !24, file: !23, line: 61, type: !11, scopeLine: 61, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!33 = distinct !DILocation(line: 107, column: 55, scope: !28, inlinedAt: !29)
!34 = !DILocation(line: 107, column: 54, scope: !28, inlinedAt: !29)
!35 = !DILocation(line: 125, column: 5, scope: !36, inlinedAt: !37)
!36 = distinct !DISubprogram(name: "_thread_idx_x", linkageName: "_RNvNtNtCsanIojcP8aaR_4core9core_arch5nvptx13__thread_idx_x", scope: !24, file: !23, line: 124, type: !11, scopeLine: 124, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!37 = distinct !DILocation(line: 107, column: 83, scope: !28, inlinedAt: !29)
!38 = !DILocation(line: 107, column: 82, scope: !28, inlinedAt: !29)
!39 = !DILocation(line: 108, column: 12, scope: !40, inlinedAt: !29)
!40 = distinct !DILexicalBlock(scope: !28, file: !8, line: 107, column: 9)
!41 = !DILocation(line: 109, column: 25, scope: !40, inlinedAt: !29)
!42 = !{!18, !20}
!43 = !DILocation(line: 64, column: 21, scope: !44, inlinedAt: !45)
!44 = distinct !DISubprogram(name: "daxpy_at", linkageName: "_RNvNtCs6I9VM9EpH8E_15offload_kernels6device8daxpy_at", scope: !9, file: !8, line: 63, type: !11, scopeLine: 63, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!45 = distinct !DILocation(line: 109, column: 13, scope: !40, inlinedAt: !29)
!46 = !{!14, !20}
!47 = !DILocation(line: 64, column: 17, scope: !44, inlinedAt: !45)
!48 = !DILocation(line: 64, column: 9, scope: !44, inlinedAt: !45)
!49 = !{!14, !18}
!50 = !DILocation(line: 108, column: 9, scope: !40, inlinedAt: !29)
!51 = distinct !DISubprogram(name: "fir", scope: !9, file: !8, line: 128, type: !11, scopeLine: 128, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!52 = !{!53}
!53 = distinct !{!53, !54, !"fir.offload_inner: %coeff"}
!54 = distinct !{!54, !"fir.offload_inner"}
!55 = !DILocation(line: 128, column: 1, scope: !51)
!56 = !{!57}
!57 = distinct !{!57, !54, !"fir.offload_inner: %x"}
!58 = !{!59}
!59 = distinct !{!59, !54, !"fir.offload_inner: %out"}
!60 = !DILocation(line: 83, column: 5, scope: !61, inlinedAt: !62)
!61 = distinct !DISubprogram(name: "_block_idx_x", linkageName: "_RNvNtNtCsanIojcP8aaR_4core9core_arch5nvptx12__block_idx_x", scope: !24, file: !23, line: 82, type: !11, scopeLine: 82, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!62 = distinct !DILocation(line: 129, column: 27, scope: !63, inlinedAt: !64)
!63 = distinct !DISubprogram(name: "fir", scope: !9, file: !8, line: 128, type: !11, scopeLine: 128, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!64 = distinct !DILocation(line: 128, column: 1, scope: !51)
!65 = !DILocation(line: 129, column: 26, scope: !63, inlinedAt: !64)
!66 = !DILocation(line: 62, column: 5, scope: !67, inlinedAt: !68)
!67 = distinct !DISubprogram(name: "_block_dim_x", linkageName: "_RNvNtNtCsanIojcP8aaR_4core9core_arch5nvptx12__block_dim_x", scope: !24, file: !23, line: 61, type: !11, scopeLine: 61, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!68 = distinct !DILocation(line: 129, column: 55, scope: !63, inlinedAt: !64)
!69 = !DILocation(line: 129, column: 54, scope: !63, inlinedAt: !64)
!70 = !DILocation(line: 125, column: 5, scope: !71, inlinedAt: !72)
!71 = distinct !DISubprogram(name: "_thread_idx_x", linkageName: "_RNvNtNtCsanIojcP8aaR_4core9core_arch5nvptx13__thread_idx_x", scope: !24, file: !23, line: 124, type: !11, scopeLine: 124, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!72 = distinct !DILocation(line: 129, column: 83, scope: !63, inlinedAt: !64)
!73 = !DILocation(line: 129, column: 82, scope: !63, inlinedAt: !64)
!74 = !DILocation(line: 130, column: 12, scope: !75, inlinedAt: !64)
!75 = distinct !DILexicalBlock(scope: !63, file: !8, line: 129, column: 9)
!76 = !{!77}
!77 = distinct !{!77, !78, !"_RNvNtCs6I9VM9EpH8E_15offload_kernels6device6fir_at: %coeff"}
!78 = distinct !{!78, !"_RNvNtCs6I9VM9EpH8E_15offload_kernels6device6fir_at"}
!79 = !DILocation(line: 131, column: 13, scope: !75, inlinedAt: !64)
!80 = !{!81}
!81 = distinct !{!81, !78, !"_RNvNtCs6I9VM9EpH8E_15offload_kernels6device6fir_at: %x"}
!82 = !{!83}
!83 = distinct !{!83, !78, !"_RNvNtCs6I9VM9EpH8E_15offload_kernels6device6fir_at: %out"}
!84 = !DILocation(line: 78, column: 24, scope: !85, inlinedAt: !89)
!85 = distinct !DILexicalBlock(scope: !86, file: !8, line: 76, column: 9)
!86 = distinct !DILexicalBlock(scope: !87, file: !8, line: 76, column: 9)
!87 = distinct !DILexicalBlock(scope: !88, file: !8, line: 75, column: 9)
!88 = distinct !DISubprogram(name: "fir_at", linkageName: "_RNvNtCs6I9VM9EpH8E_15offload_kernels6device6fir_at", scope: !9, file: !8, line: 74, type: !11, scopeLine: 74, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!89 = distinct !DILocation(line: 131, column: 13, scope: !75, inlinedAt: !64)
!90 = !{!77, !53}
!91 = !{!81, !83, !57, !59}
!92 = !DILocation(line: 78, column: 35, scope: !85, inlinedAt: !89)
!93 = !{!81, !57}
!94 = !{!77, !83, !53, !59}
!95 = !DILocation(line: 78, column: 17, scope: !85, inlinedAt: !89)
!96 = !DILocation(line: 77, column: 16, scope: !85, inlinedAt: !89)
!97 = !DILocation(line: 77, column: 13, scope: !85, inlinedAt: !89)
!98 = !DILocation(line: 0, scope: !88, inlinedAt: !89)
!99 = !DILocation(line: 81, column: 9, scope: !87, inlinedAt: !89)
!100 = !{!83, !59}
!101 = !{!77, !81, !53, !57}
!102 = distinct !DISubprogram(name: "hash_u32", scope: !9, file: !8, line: 140, type: !11, scopeLine: 140, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!103 = !{!104}
!104 = distinct !{!104, !105, !"hash_u32.offload_inner: %x"}
!105 = distinct !{!105, !"hash_u32.offload_inner"}
!106 = !DILocation(line: 140, column: 1, scope: !102)
!107 = !{!108}
!108 = distinct !{!108, !105, !"hash_u32.offload_inner: %out"}
!109 = !DILocation(line: 83, column: 5, scope: !110, inlinedAt: !111)
!110 = distinct !DISubprogram(name: "_block_idx_x", linkageName: "_RNvNtNtCsanIojcP8aaR_4core9core_arch5nvptx12__block_idx_x", scope: !24, file: !23, line: 82, type: !11, scopeLine: 82, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!111 = distinct !DILocation(line: 141, column: 27, scope: !112, inlinedAt: !113)
!112 = distinct !DISubprogram(name: "hash_u32", scope: !9, file: !8, line: 140, type: !11, scopeLine: 140, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!113 = distinct !DILocation(line: 140, column: 1, scope: !102)
!114 = !DILocation(line: 141, column: 26, scope: !112, inlinedAt: !113)
!115 = !DILocation(line: 62, column: 5, scope: !116, inlinedAt: !117)
!116 = distinct !DISubprogram(name: "_block_dim_x", linkageName: "_RNvNtNtCsanIojcP8aaR_4core9core_arch5nvptx12__block_dim_x", scope: !24, file: !23, line: 61, type: !11, scopeLine: 61, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!117 = distinct !DILocation(line: 141, column: 55, scope: !112, inlinedAt: !113)
!118 = !DILocation(line: 141, column: 54, scope: !112, inlinedAt: !113)
!119 = !DILocation(line: 125, column: 5, scope: !120, inlinedAt: !121)
!120 = distinct !DISubprogram(name: "_thread_idx_x", linkageName: "_RNvNtNtCsanIojcP8aaR_4core9core_arch5nvptx13__thread_idx_x", scope: !24, file: !23, line: 124, type: !11, scopeLine: 124, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!121 = distinct !DILocation(line: 141, column: 83, scope: !112, inlinedAt: !113)
!122 = !DILocation(line: 141, column: 82, scope: !112, inlinedAt: !113)
!123 = !DILocation(line: 142, column: 12, scope: !124, inlinedAt: !113)
!124 = distinct !DILexicalBlock(scope: !112, file: !8, line: 141, column: 9)
!125 = !DILocation(line: 86, column: 18, scope: !126, inlinedAt: !127)
!126 = distinct !DISubprogram(name: "hash_at", linkageName: "_RNvNtCs6I9VM9EpH8E_15offload_kernels6device7hash_at", scope: !9, file: !8, line: 85, type: !11, scopeLine: 85, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!127 = distinct !DILocation(line: 143, column: 13, scope: !124, inlinedAt: !113)
!128 = !DILocation(line: 2587, column: 13, scope: !129, inlinedAt: !133)
!129 = distinct !DISubprogram(name: "wrapping_mul", linkageName: "_RNvMs6_NtCsanIojcP8aaR_4core3numm12wrapping_mul", scope: !131, file: !130, line: 2586, type: !11, scopeLine: 2586, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!130 = !DIFile(filename: "/usr/lib/rustlib/src/rust/library/core/src/num/uint_macros.rs", directory: "", checksumkind: CSK_MD5, checksum: "5fc7d5e74eb0c3c3b6eb5c642b7e095f")
!131 = !DINamespace(name: "{impl#8}", scope: !132)
!132 = !DINamespace(name: "num", scope: !26)
!133 = distinct !DILocation(line: 86, column: 23, scope: !126, inlinedAt: !127)
!134 = !DILocation(line: 2030, column: 14, scope: !135, inlinedAt: !138)
!135 = distinct !DISubprogram(name: "rotate_left<u32>", linkageName: "_RINvNtCsanIojcP8aaR_4core10intrinsics11rotate_leftmECs6I9VM9EpH8E_15offload_kernels", scope: !137, file: !136, line: 2026, type: !11, scopeLine: 2026, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!136 = !DIFile(filename: "/usr/lib/rustlib/src/rust/library/core/src/intrinsics/mod.rs", directory: "", checksumkind: CSK_MD5, checksum: "c63bdff6283ee446a2fd675d4e76397e")
!137 = !DINamespace(name: "intrinsics", scope: !26)
!138 = distinct !DILocation(line: 386, column: 20, scope: !139, inlinedAt: !140)
!139 = distinct !DISubprogram(name: "rotate_left", linkageName: "_RNvMs6_NtCsanIojcP8aaR_4core3numm11rotate_left", scope: !131, file: !130, line: 385, type: !11, scopeLine: 385, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!140 = distinct !DILocation(line: 86, column: 49, scope: !126, inlinedAt: !127)
!141 = !DILocation(line: 86, column: 67, scope: !126, inlinedAt: !127)
!142 = !DILocation(line: 86, column: 9, scope: !126, inlinedAt: !127)
!143 = !DILocation(line: 142, column: 9, scope: !124, inlinedAt: !113)
!144 = distinct !DISubprogram(name: "saxpy", scope: !9, file: !8, line: 95, type: !11, scopeLine: 95, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!145 = !{!146}
!146 = distinct !{!146, !147, !"saxpy.offload_inner: %a"}
!147 = distinct !{!147, !"saxpy.offload_inner"}
!148 = !DILocation(line: 95, column: 1, scope: !144)
!149 = !{!150}
!150 = distinct !{!150, !147, !"saxpy.offload_inner: %x"}
!151 = !{!152}
!152 = distinct !{!152, !147, !"saxpy.offload_inner: %y"}
!153 = !DILocation(line: 83, column: 5, scope: !154, inlinedAt: !155)
!154 = distinct !DISubprogram(name: "_block_idx_x", linkageName: "_RNvNtNtCsanIojcP8aaR_4core9core_arch5nvptx12__block_idx_x", scope: !24, file: !23, line: 82, type: !11, scopeLine: 82, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!155 = distinct !DILocation(line: 96, column: 27, scope: !156, inlinedAt: !157)
!156 = distinct !DISubprogram(name: "saxpy", scope: !9, file: !8, line: 95, type: !11, scopeLine: 95, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!157 = distinct !DILocation(line: 95, column: 1, scope: !144)
!158 = !DILocation(line: 96, column: 26, scope: !156, inlinedAt: !157)
!159 = !DILocation(line: 62, column: 5, scope: !160, inlinedAt: !161)
!160 = distinct !DISubprogram(name: "_block_dim_x", linkageName: "_RNvNtNtCsanIojcP8aaR_4core9core_arch5nvptx12__block_dim_x", scope: !24, file: !23, line: 61, type: !11, scopeLine: 61, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!161 = distinct !DILocation(line: 96, column: 55, scope: !156, inlinedAt: !157)
!162 = !DILocation(line: 96, column: 54, scope: !156, inlinedAt: !157)
!163 = !DILocation(line: 125, column: 5, scope: !164, inlinedAt: !165)
!164 = distinct !DISubprogram(name: "_thread_idx_x", linkageName: "_RNvNtNtCsanIojcP8aaR_4core9core_arch5nvptx13__thread_idx_x", scope: !24, file: !23, line: 124, type: !11, scopeLine: 124, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!165 = distinct !DILocation(line: 96, column: 83, scope: !156, inlinedAt: !157)
!166 = !DILocation(line: 96, column: 82, scope: !156, inlinedAt: !157)
!167 = !DILocation(line: 97, column: 12, scope: !168, inlinedAt: !157)
!168 = distinct !DILexicalBlock(scope: !156, file: !8, line: 96, column: 9)
!169 = !DILocation(line: 98, column: 25, scope: !168, inlinedAt: !157)
!170 = !{!150, !152}
!171 = !DILocation(line: 59, column: 20, scope: !172, inlinedAt: !173)
!172 = distinct !DISubprogram(name: "saxpy_at", linkageName: "_RNvNtCs6I9VM9EpH8E_15offload_kernels6device8saxpy_at", scope: !9, file: !8, line: 58, type: !11, scopeLine: 58, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!173 = distinct !DILocation(line: 98, column: 13, scope: !168, inlinedAt: !157)
!174 = !{!146, !152}
!175 = !DILocation(line: 59, column: 16, scope: !172, inlinedAt: !173)
!176 = !DILocation(line: 59, column: 27, scope: !172, inlinedAt: !173)
!177 = !{!146, !150}
!178 = !DILocation(line: 59, column: 9, scope: !172, inlinedAt: !173)
!179 = !DILocation(line: 97, column: 9, scope: !168, inlinedAt: !157)
!180 = distinct !DISubprogram(name: "triad", scope: !9, file: !8, line: 117, type: !11, scopeLine: 117, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!181 = !{!182}
!182 = distinct !{!182, !183, !"triad.offload_inner: %a"}
!183 = distinct !{!183, !"triad.offload_inner"}
!184 = !DILocation(line: 117, column: 1, scope: !180)
!185 = !{!186}
!186 = distinct !{!186, !183, !"triad.offload_inner: %b"}
!187 = !{!188}
!188 = distinct !{!188, !183, !"triad.offload_inner: %c"}
!189 = !{!190}
!190 = distinct !{!190, !183, !"triad.offload_inner: %q"}
!191 = !DILocation(line: 83, column: 5, scope: !192, inlinedAt: !193)
!192 = distinct !DISubprogram(name: "_block_idx_x", linkageName: "_RNvNtNtCsanIojcP8aaR_4core9core_arch5nvptx12__block_idx_x", scope: !24, file: !23, line: 82, type: !11, scopeLine: 82, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!193 = distinct !DILocation(line: 118, column: 27, scope: !194, inlinedAt: !195)
!194 = distinct !DISubprogram(name: "triad", scope: !9, file: !8, line: 117, type: !11, scopeLine: 117, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!195 = distinct !DILocation(line: 117, column: 1, scope: !180)
!196 = !DILocation(line: 118, column: 26, scope: !194, inlinedAt: !195)
!197 = !DILocation(line: 62, column: 5, scope: !198, inlinedAt: !199)
!198 = distinct !DISubprogram(name: "_block_dim_x", linkageName: "_RNvNtNtCsanIojcP8aaR_4core9core_arch5nvptx12__block_dim_x", scope: !24, file: !23, line: 61, type: !11, scopeLine: 61, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!199 = distinct !DILocation(line: 118, column: 55, scope: !194, inlinedAt: !195)
!200 = !DILocation(line: 118, column: 54, scope: !194, inlinedAt: !195)
!201 = !DILocation(line: 125, column: 5, scope: !202, inlinedAt: !203)
!202 = distinct !DISubprogram(name: "_thread_idx_x", linkageName: "_RNvNtNtCsanIojcP8aaR_4core9core_arch5nvptx13__thread_idx_x", scope: !24, file: !23, line: 124, type: !11, scopeLine: 124, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!203 = distinct !DILocation(line: 118, column: 83, scope: !194, inlinedAt: !195)
!204 = !DILocation(line: 118, column: 82, scope: !194, inlinedAt: !195)
!205 = !DILocation(line: 119, column: 12, scope: !206, inlinedAt: !195)
!206 = distinct !DILexicalBlock(scope: !194, file: !8, line: 118, column: 9)
!207 = !DILocation(line: 120, column: 34, scope: !206, inlinedAt: !195)
!208 = !{!182, !186, !188}
!209 = !DILocation(line: 69, column: 16, scope: !210, inlinedAt: !211)
!210 = distinct !DISubprogram(name: "triad_at", linkageName: "_RNvNtCs6I9VM9EpH8E_15offload_kernels6device8triad_at", scope: !9, file: !8, line: 68, type: !11, scopeLine: 68, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !5, templateParams: !12)
!211 = distinct !DILocation(line: 120, column: 13, scope: !206, inlinedAt: !195)
!212 = !{!182, !188, !190}
!213 = !DILocation(line: 69, column: 27, scope: !210, inlinedAt: !211)
!214 = !{!182, !186, !190}
!215 = !DILocation(line: 69, column: 23, scope: !210, inlinedAt: !211)
!216 = !DILocation(line: 69, column: 9, scope: !210, inlinedAt: !211)
!217 = !{!186, !188, !190}
!218 = !DILocation(line: 119, column: 9, scope: !206, inlinedAt: !195)
