#!/usr/bin/env bun
// `erp`: the Construction ERP command line. Data goes to stdout, progress and errors to stderr.
import { processFactory } from "./factory.ts";
import { runProgram } from "./program.ts";
import { userDirectory } from "./user-directory.ts";

// File paths are the user's: a script runner (`bun run erp`) starts the CLI in the checkout.
process.chdir(userDirectory(process.env, process.cwd()) ?? process.cwd());
const f = processFactory();
const code = await runProgram(f, process.argv);
// A command that set the process's exit code itself (a declined delete, a webhook test that failed)
// keeps it: the program's own code replaces it only when something went wrong there.
process.exitCode = code || process.exitCode;
