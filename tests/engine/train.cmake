ywb_add_test(test_train_args SOURCES test_train_args.cpp LABELS unit ENGINE_INTERNAL TIMEOUT 60)
ywb_add_test(test_train_parts SOURCES test_train_parts.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH)
ywb_add_test(test_optimizers SOURCES test_optimizers.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH)
ywb_add_test(test_adam_variants SOURCES test_adam_variants.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH)
# The optimizer half of a whole-step CUDA graph (issue 33) against the eager step, and its capture check.
ywb_add_test(test_graph_ready_step SOURCES test_graph_ready_step.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 300)
# The trainer with the graph-ready step (its bookkeeping: eager vs graph-ready, NaN skips, resume).
ywb_add_test(test_graph_ready_train SOURCES test_graph_ready_train.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 600)
# MuSGD against Ultralytics 8.4.52 (../shared/fixtures/ultralytics84): steps, groups, auto rule, resume, kernel.
ywb_add_test(test_musgd SOURCES test_musgd.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH)
ywb_add_test(test_trainer SOURCES test_trainer.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 900)
ywb_add_test(test_learns SOURCES test_learns.cpp LABELS train TIMEOUT 1800)
# Every kernel family held to AVX2 (LibTorch's dispatch, oneDNN under both its variable names, OpenBLAS):
# fp32 training then rounds the same on any x86 CPU with AVX2 (docs/PARITY.md "Reproducible across CPUs").
set(YW_AVX2_ENV ATEN_CPU_CAPABILITY=avx2 DNNL_MAX_CPU_ISA=AVX2 ONEDNN_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell)
# Ultralytics's reference run repeated epoch for epoch (issue 13 section 4; about 90 s on 2 cores), against
# the reference made under the same four settings (../shared/fixtures/ultralytics/reference-avx2). Its
# limit: it took 888 s beside a parallel test and a training run (2026-11-26), 102 s alone before the settings.
ywb_add_test(test_learning_parity SOURCES test_learning_parity.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 1500
             ENV ${YW_AVX2_ENV})
# YOLO26 learns (issue 32 part 8): yolo26n from scratch on shapes/, 30 epochs, against Ultralytics 8.4.52's
# own run of the same command; under the AVX2 settings so every x86 CPU gives the same answer (about 90 s alone
# on 2 idle cores).
ywb_add_test(test_learns_yolo26 SOURCES test_learns_yolo26.cpp LABELS train TIMEOUT 1800 ENV ${YW_AVX2_ENV})
# The default precision on a CPU without native bf16 (oneDNN held to AVX2): not slower than fp32 (issue 35).
ywb_add_test(test_amp_choice SOURCES test_amp_choice.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 600
             ENV ${YW_AVX2_ENV})
ywb_add_test(test_bench_train SOURCES test_bench_train.cpp LABELS smoke TIMEOUT 600)
ywb_add_test(test_trainer_yolo11 SOURCES test_trainer_yolo11.cpp LABELS unit ENGINE_INTERNAL TIMEOUT 900)
ywb_add_test(test_quickstart_cli SOURCES test_quickstart_cli.cpp LABELS smoke TIMEOUT 600)
ywb_add_test(test_resume SOURCES test_resume.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 600)
ywb_add_test(test_background_save SOURCES test_background_save.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 600)
ywb_add_test(test_checkpoint_disk_full SOURCES test_checkpoint_disk_full.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 600)
# Kill storm (issue 17): `ywb train` SIGKILLed at chosen moments and resumed until done, then compared bit for
# bit with an uninterrupted run. YWB_KILL_STORM_KILLS (default 10) and YWB_KILL_STORM_SEED; 100 kills:
# tests/reliability/kill_storm.sh.
ywb_add_test(test_kill_storm SOURCES test_kill_storm.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 600)
ywb_add_test(test_nonfinite SOURCES test_nonfinite.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 600)
ywb_add_test(test_memory SOURCES test_memory.cpp LABELS unit ENGINE_INTERNAL TIMEOUT 600)
# <run>/train.log: what `ywb train` printed, line for line; appended on resume; whole lines after SIGKILL.
ywb_add_test(test_run_log SOURCES test_run_log.cpp LABELS unit TIMEOUT 300)
# multi_scale (8.4's float): the sizes drawn, the resized batch, and short runs with multi_scale and cls_pw
# that train at the drawn sizes and resume bit-exact.
ywb_add_test(test_multi_scale SOURCES test_multi_scale.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 300)
# freeze= (Ultralytics' transfer learning): text and args.yaml forms, frozen BatchNorm statistics, fine-tuning
# runs that keep the frozen layers as loaded and resume bit for bit.
ywb_add_test(test_freeze SOURCES test_freeze.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 600)
# ywb tune (hyperparameter evolution): the space, the draws, real tunes on a tiny set (a fine-tune of the
# shapes fixture, 1-2 epochs at 96 px per iteration), stop and resume, the command line.
ywb_add_test(test_tune SOURCES test_tune.cpp LABELS unit TIMEOUT 300)
