// `erp completion bash|zsh|fish`: a completion script generated from the command tree itself, so
// every command, subcommand and option the CLI has is completed, including resources the API adds.
import { type Command, InvalidArgumentError } from "commander";

const SHELLS = ["bash", "zsh", "fish"] as const;

interface Node {
  path: string[];
  subcommands: string[];
  options: string[];
}

function walk(command: Command, path: string[] = []): Node[] {
  const options = command.options.flatMap((option) =>
    [option.long, option.short].filter((flag): flag is string => Boolean(flag)),
  );
  const here: Node = {
    path,
    subcommands: command.commands.map((sub) => sub.name()),
    options: [...options, "--help"],
  };
  return [here, ...command.commands.flatMap((sub) => walk(sub, [...path, sub.name()]))];
}

function bash(nodes: Node[], globals: string[]): string {
  const cases = nodes
    .map(
      (node) =>
        `    "${node.path.join(" ")}") words="${[...node.subcommands, ...node.options, ...globals].join(" ")}" ;;`,
    )
    .join("\n");
  return `# erp completion for bash: eval "$(erp completion bash)" (or save it under /etc/bash_completion.d/)
_erp_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" word words
  for word in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    case "$word" in -*) ;; *) [[ -n "$path" ]] && path="$path $word" || path="$word" ;; esac
  done
  while :; do
    case "$path" in
${cases}
    *) if [[ "$path" == *" "* ]]; then path="\${path% *}"; else path=""; fi; continue ;;
    esac
    break
  done
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
complete -F _erp_complete erp
`;
}

function zsh(nodes: Node[], globals: string[]): string {
  return `#compdef erp
# erp completion for zsh: erp completion zsh > "\${fpath[1]}/_erp"
autoload -U bashcompinit && bashcompinit
${bash(nodes, globals)}`;
}

function fish(nodes: Node[]): string {
  const lines = [
    "# erp completion for fish: erp completion fish > ~/.config/fish/completions/erp.fish",
    "complete -c erp -f",
  ];
  for (const node of nodes) {
    const condition =
      node.path.length === 0
        ? "__fish_use_subcommand"
        : `__fish_seen_subcommand_from ${node.path.at(-1)}`;
    for (const sub of node.subcommands) lines.push(`complete -c erp -n '${condition}' -a '${sub}'`);
    for (const option of node.options.filter((o) => o.startsWith("--")))
      lines.push(`complete -c erp -n '${condition}' -l '${option.slice(2)}'`);
  }
  return `${lines.join("\n")}\n`;
}

export function registerCompletion(program: Command): void {
  program
    .command("completion")
    .summary("print a shell completion script (bash, zsh or fish)")
    .argument("<shell>", SHELLS.join(", "), (value: string) => {
      if (!(SHELLS as readonly string[]).includes(value))
        throw new InvalidArgumentError(`one of ${SHELLS.join(", ")}`);
      return value;
    })
    .addHelpText(
      "after",
      [
        "",
        "EXAMPLES",
        '  eval "$(erp completion bash)"        # in ~/.bashrc',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a zsh expansion, shown as it is typed
        '  erp completion zsh > "${fpath[1]}/_erp"',
        "  erp completion fish > ~/.config/fish/completions/erp.fish",
        "",
      ].join("\n"),
    )
    .action((shell: (typeof SHELLS)[number]) => {
      const nodes = walk(program);
      const globals = nodes[0]!.options;
      process.stdout.write(
        shell === "bash"
          ? bash(nodes, globals)
          : shell === "zsh"
            ? zsh(nodes, globals)
            : fish(nodes),
      );
    });
}
