#!/usr/bin/env bash
# One story of the protocol floor, as a shell runs it: the agent (not timed), then the fewest git
# commands the story needs, each block timed by bash's own `time` (TIMEFORMAT, no process of its
# own). Prints one line per timed block: its seconds.
#
#   floor-story.sh <story> <fail-first: 0|1> <agent: node> <agent script>   (in the repository)
#
# A failed first attempt is saved and reverted: the real index copied to a temporary one (not
# timed: ralphtool copies it in-process), then `add -A` into it, `write-tree`, `commit-tree`,
# `update-ref`, `reset --hard`, `clean -fd`. The accepted attempt: `add -A` + `commit`.
set -u
story=$1
fail_first=$2
node=$3
agent=$4
change=${BENCH_CHANGE:?}
TIMEFORMAT=%6R
git_dir=.git

run_agent() {
  RALPHTOOL_STORY_ID=$story RALPHTOOL_ATTEMPT=$1 RALPHTOOL_CHANGE=$change \
    "$node" "$agent" </dev/null >/dev/null 2>&1 || { echo "the agent failed" >&2; exit 1; }
}

if [ "$fail_first" = 1 ]; then
  run_agent 1
  temp_index=$git_dir/floor-index-$story
  cp "$git_dir/index" "$temp_index"
  { time {
    GIT_INDEX_FILE=$temp_index git add -A &&
      tree=$(GIT_INDEX_FILE=$temp_index git write-tree) &&
      saved=$(git commit-tree "$tree" -p HEAD -m "attempt $story-1") &&
      git update-ref "refs/ralphtool/$change/attempts/$story-1" "$saved" &&
      git reset -q --hard &&
      git clean -q -f -d
  } 2>&3 || exit 1; } 3>&2 2>&1
  rm -f "$temp_index"
  run_agent 2
else
  run_agent 1
fi
{ time {
  git add -A && git commit -q --no-verify -m "checkpoint: $story"
} 2>&3 || exit 1; } 3>&2 2>&1
