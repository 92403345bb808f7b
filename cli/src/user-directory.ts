// The directory the user ran `bun run erp` (or `npm run erp`) from. A script runner starts a script
// in its package's directory, not the user's, and says where the user was: npm in INIT_CWD, bun in
// npm_config_local_prefix (its `--cwd`, if given). Only the checkout's own `erp` script, started
// where the runner starts it, moves back there: a script of another name keeps the paths it was
// written with, and one that changed directory itself is where it means to be.
import path from "node:path";

export function userDirectory(env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  if (env.npm_lifecycle_event !== "erp" || env.npm_package_json === undefined) return undefined;
  if (path.dirname(env.npm_package_json) !== cwd) return undefined;
  if (env.INIT_CWD) return env.INIT_CWD;
  if (env.npm_config_user_agent?.startsWith("bun/"))
    return env.npm_config_local_prefix || undefined;
  return undefined;
}
