#!/bin/sh
# A non-regression test for a bot: fail when CANDIDATE is worse than BASELINE.
#   docs/ci/compare.sh CANDIDATE BASELINE [more arena compare options]
#   docs/ci/compare.sh bots/mine.py bots/mine_released.py --trust
# It reads `arena compare`'s exit status (docs/compare.md): 0 better or the same, 1 worse,
# 3 undecided at the game limit, 2 a usage error; the bounds are docs/ci.md's.
set -u
if [ $# -lt 2 ]; then
  echo "usage: compare.sh CANDIDATE BASELINE [arena compare options]" >&2
  exit 2
fi
candidate=$1
baseline=$2
shift 2
arena compare "$candidate" "$baseline" --rules dice --elo0 0 --elo1 20 --games 6000 --quiet "$@"
status=$?
case $status in
  0) echo "compare.sh: $candidate is not worse than $baseline" ;;
  1) echo "compare.sh: $candidate is worse than $baseline: a regression" ;;
  3) echo "compare.sh: undecided at the game limit: raise --games, or widen --elo1" ;;
  *) echo "compare.sh: arena compare could not start (exit status $status)" ;;
esac
exit $status
