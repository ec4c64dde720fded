# The completion itself, for bash and (through bashcompinit) zsh: only
# "${COMP_WORDS[@]}", COMP_CWORD and the current and previous words ($2, $3),
# which both shells give a completion function the same way, no array index,
# and word splitting only of command substitutions (zsh splits those too).

# The culprit.toml the command line names (--config), else ./culprit.toml.
_culprit_config() {
  local w want="" config="culprit.toml"
  for w in "${COMP_WORDS[@]}"; do
    if [ -n "$want" ]; then config="$w"; want=""; fi
    case "$w" in
      --config) want=1 ;;
      --config=*) config="${w#--config=}" ;;
    esac
  done
  echo "$config"
}

# Query names: the [queries.NAME] tables of the configuration.
_culprit_queries() {
  local config
  config="$(_culprit_config)"
  [ -r "$config" ] || return 0
  sed -n 's/^[[:space:]]*\[queries\.\(.*\)\][[:space:]]*\(#.*\)\{0,1\}$/\1/p' "$config" |
    sed 's/^"\(.*\)"$/\1/'
}

# Revisions: branches, tags and HEAD of the engine's repository ([engine] repo
# of the configuration, relative to its directory), else of the current one.
_culprit_revisions() {
  local config repo="" dir
  config="$(_culprit_config)"
  if [ -r "$config" ]; then
    repo="$(sed -n 's/^[[:space:]]*repo[[:space:]]*=[[:space:]]*["'"'"']\(.*\)["'"'"'].*$/\1/p' \
      "$config" | head -n 1)"
    dir="$(dirname "$config")"
    case "$repo" in
      "") repo="$dir" ;;
      /*) ;;
      *) repo="$dir/$repo" ;;
    esac
  fi
  git -C "${repo:-.}" for-each-ref --format='%(refname:short)' refs/heads refs/tags \
    refs/remotes 2>/dev/null
  echo HEAD
}

_culprit_complete() {
  local cur="$2" prev="$3" w cmdpath="" i=0 positional=0 skip=""
  COMPREPLY=()
  # The command path typed so far ("", "records", "records list") and how many
  # positional arguments follow it.
  for w in "${COMP_WORDS[@]}"; do
    [ "$i" -ge "$COMP_CWORD" ] && break
    i=$((i + 1))
    [ "$i" -eq 1 ] && continue
    if [ -n "$skip" ]; then skip=""; continue; fi
    case "$w" in
      --) break ;;
      --*=*) ;;
      -*) _culprit_valued "$w" && skip=1 ;;
      *)
        case " $(_culprit_words "$cmdpath") " in
          *" $w "*) cmdpath="${cmdpath:+$cmdpath }$w" ;;
          *) positional=$((positional + 1)) ;;
        esac
        ;;
    esac
  done
  local kind=""
  case "$prev" in
    --good | --bad | --rev | --reference | --candidate | --published-rev | --commit) kind=rev ;;
    -q | --query | --probe-query | --only) kind=query ;;
    --stop-after)
      if [ "$cmdpath" = "demo" ]; then
        COMPREPLY=($(compgen -W "history confirm probes bisect relevance" -- "$cur"))
      else
        COMPREPLY=($(compgen -W "confirm probes bisect relevance" -- "$cur"))
      fi
      return 0
      ;;
    *) _culprit_valued "$prev" && kind=file ;;
  esac
  if [ -z "$kind" ]; then
    case "$cur" in
      -*) ;;
      *)
        # A command without commands of its own takes its positionals here: the
        # positional's kind, or the last one's for a repeated positional.
        if [ "$positional" -gt 0 ] ||
          [ -z "$(_culprit_words "$cmdpath" | tr ' ' '\n' | grep -v '^-')" ]; then
          local k n=0 last=""
          for k in $(_culprit_positionals "$cmdpath"); do
            [ "$n" -eq "$positional" ] && kind="$k"
            n=$((n + 1))
            last="$k"
          done
          [ -z "$kind" ] && kind="$last"
        fi
        ;;
    esac
  fi
  case "$kind" in
    rev) COMPREPLY=($(compgen -W "$(_culprit_revisions)" -- "$cur")) ;;
    query) COMPREPLY=($(compgen -W "$(_culprit_queries)" -- "$cur")) ;;
    file) COMPREPLY=($(compgen -f -- "$cur")) ;;
    *) COMPREPLY=($(compgen -W "$(_culprit_words "$cmdpath")" -- "$cur")) ;;
  esac
  return 0
}
