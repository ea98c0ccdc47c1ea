#!/bin/sh
# A `command` teacher and explainer for the `fixit all` kill test. Repair calls get a kernel
# that compiles and holds the requested instruction families, explain calls (trajectory id explain__<mined id>) a short first-person
# explanation; both depend only on the call, so two runs give the same rows. Each call is
# recorded in $PTXBENCH_TEST_STATE/calls; the call whose number is in $PTXBENCH_TEST_KILL_AT
# (once each) kills the ptxbench process that started it with SIGKILL, as a crash would. Its
# parent is the keeper of its process group; ptxbench is the keeper's parent.
cat >/dev/null
state="$PTXBENCH_TEST_STATE"
echo "$PTXBENCH_TRAJECTORY_ID $PTXBENCH_TURN" >>"$state/calls"
n=$(wc -l <"$state/calls")
for k in ${PTXBENCH_TEST_KILL_AT:-}; do
  if [ "$n" -eq "$k" ] && mkdir "$state/killed-$k" 2>/dev/null; then
    read -r _ _ _ ptxbench _ <"/proc/$PPID/stat"
    kill -9 "$ptxbench"
    exit 0
  fi
done
case "$PTXBENCH_TRAJECTORY_ID" in
explain__*)
  row=${PTXBENCH_TRAJECTORY_ID#explain__}
  printf '%s\n' "I start from the compiler's complaint for row $row: the kernel did not build," \
    "so nothing about its numbers can be judged yet. The message points at the line where I" \
    "declared the output pointer without a type the device code knows. I first suspected the" \
    "launch bounds, but those only change register allocation and would not stop the build." \
    "The smallest change that keeps the rest intact is to write the store through a plain" \
    "float pointer, one element per thread, and check again that every thread index stays" \
    "inside the thirty two elements a single warp touches."
  ;;
*)
  # A kernel whose machine code holds the GEMM task's requested families (wgmma, TMA,
  # mbarrier), so that without a GPU its verdict stays NOT_RUN (a repair, unverified) rather
  # than INSTRUCTIONS_ABSENT; the same file every time, so the compile cache serves it.
  printf '%s\n' "The store needs a plain float pointer." '```cuda'
  cat "$(dirname "$0")/../../compile/data/hopper_wgmma_tma.cu"
  printf '%s\n' '```'
  ;;
esac
