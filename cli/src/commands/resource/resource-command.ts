// The shape of one resource subcommand as data: the group file turns each into a commander command per resource.
import type { Command } from "commander";
import type { ResourceSpec } from "../../resources.ts";

export interface ResourceCommand {
  name: string;
  summary(spec: ResourceSpec): string;
  /** Adds this subcommand's arguments and options (the global ones are on the program). */
  configure(command: Command, spec: ResourceSpec): void;
  run(
    spec: ResourceSpec,
    command: Command,
    args: unknown[],
    options: Record<string, unknown>,
  ): Promise<void>;
  /** Help after the options: the fields it takes, examples. */
  help?(spec: ResourceSpec): string;
}
