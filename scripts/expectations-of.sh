# Sourced by scripts/conformance.sh (and its test): the expectations files of a run.
#
# expectations_of ARGS...: sets the array `expectations` to every PATH of --expectations PATH or
# --expectations=PATH among pytest's ARGS (before a `--`; pytest takes no abbreviated option), or
# to expectations/ when there is none, which is the plugin's default too.
# The rule kept: the files the plugin marked rows expected-fail with are the files the gate judges
# those rows against again and the report shows beside them; one set for all three. A gate reading
# expectations/ alone fails every row the run's own --expectations file accounts for.
expectations_of() {
  expectations=()
  while [ $# -gt 0 ]; do
    case $1 in
      --) break ;;
      --expectations) if [ $# -gt 1 ]; then expectations+=("$2"); shift; fi ;;
      --expectations=*) expectations+=("${1#--expectations=}") ;;
    esac
    shift
  done
  [ ${#expectations[@]} -gt 0 ] || expectations=(expectations)
}
