#!/bin/sh
# A slow `command` model for the resume test. It answers without code after a pause, naming the
# trajectory and turn it was asked for. The call numbered $PTXBENCH_TEST_KILL_AT (or any later
# one, once) kills the ptxbench process that started it with SIGKILL, as a crash would. Its
# parent is the keeper of its process group; ptxbench is the keeper's parent.
cat >/dev/null
state="$PTXBENCH_TEST_STATE"
echo "$PTXBENCH_TRAJECTORY_ID $PTXBENCH_TURN" >>"$state/calls"
n=$(wc -l <"$state/calls")
sleep 0.2
if [ "$n" -ge "${PTXBENCH_TEST_KILL_AT:-1000000}" ] && mkdir "$state/killed" 2>/dev/null; then
  read -r _ _ _ ptxbench _ <"/proc/$PPID/stat"
  kill -9 "$ptxbench"
  exit 0
fi
printf 'No code in this reply: %s turn %s.\n' "$PTXBENCH_TRAJECTORY_ID" "$PTXBENCH_TURN"
