#!/usr/bin/zsh -f
# Completes a command line in a real interactive zsh, driven through a pseudo-terminal
# (zsh/zpty), with compinit and the completion function from DIR: every candidate the
# completion system adds is written to OUT, one per line.
# Usage: zsh-complete.zsh DIR OUT 'usedspace status --for'
zmodload zsh/zpty || exit 2
local dir=$1 out=$2 line=$3
: >| $out
zpty -b shell zsh -f -i
zpty -w shell "PS1= PROMPT= RPROMPT=; unsetopt zle_bracketed_paste 2>/dev/null"
zpty -w shell "fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w shell "compadd() { if (( \${@[(I)-[OAD]]} )); then builtin compadd \"\$@\"; return; fi; local -a hits; builtin compadd -A hits \"\$@\"; (( \$#hits )) && print -rl -- \$hits >> ${(q)out}; builtin compadd \"\$@\"; }"
zpty -w shell "zstyle ':completion:*' list-prompt ''; zstyle ':completion:*' menu no; print -r -- ready >> ${(q)out}.ready"
integer waited=0
while [[ ! -s $out.ready ]] && (( waited++ < 100 )); do sleep 0.1; done
zpty -w -n shell "$line"$'\t'
waited=0
while [[ ! -s $out ]] && (( waited++ < 50 )); do sleep 0.1; done
sleep 0.3
zpty -d shell
rm -f $out.ready
