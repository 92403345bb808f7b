#!/usr/bin/env bun
// `erp`: the Construction ERP command line. Data goes to stdout, progress and errors to stderr.
import { processFactory } from "./factory.ts";
import { runProgram } from "./program.ts";
import { userDirectory } from "./user-directory.ts";

// File paths are the user's: a script runner (`bun run erp`) starts the CLI in the checkout.
process.chdir(userDirectory(process.env, process.cwd()) ?? process.cwd());
const f = processFactory();
process.exitCode = await runProgram(f, process.argv);
