// Runs chitin's OpenClaw hook pack inside the real OpenClaw, with OpenClaw's own code:
// its loader finds and imports the pack from the managed hooks folder (the one
// OPENCLAW_STATE_DIR / OPENCLAW_CONFIG_PATH / the home name, as OpenClaw resolves it),
// its bootstrap runs the hook and filters and sanitises the files to what reaches the
// prompt, and its command and auto-reset paths fire the session-end events.
//
//   node driver.mjs <openclaw package folder> <steps.json> <result.json>
//
// steps.json: {"workspaceDir": ..., "steps": [{"do": "status" | "bootstrap" | "new" |
// "reset" | "auto-reset" | "shell", ...}]}; result.json: one answer per step (see run()).
// "shell" runs a command (argv) between two steps, in the same gateway process.
//
// This is the only file that knows OpenClaw's internals. Its dist files are bundles
// with hashed names, and their exports are renamed to letters; INTERNALS names each
// function we call and the bundle it lives in, and find() reads the bundle's export
// list for the letter. An OpenClaw upgrade that moves or renames one is one edit here
// (and the pin in scripts/install_openclaw.py).

import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

// function name -> the dist bundle's name before its hash (dist/<name>-<hash>.mjs)
const INTERNALS = {
  prepareInternalHooks: "loader", // src/hooks/loader.ts
  buildWorkspaceHookStatus: "hooks-status", // src/hooks/hooks-status.ts (`openclaw hooks list`)
  resolveBootstrapContextForRun: "bootstrap-files", // src/agents/bootstrap-files.ts
  emitResetCommandHooks: "commands-reset-hooks", // src/auto-reply/reply/commands-reset-hooks.ts
  emitSessionAutoResetHook: "session-auto-reset", // src/hooks/session-auto-reset.ts
  getActiveGatewayRootWorkCount: "gateway-work-admission", // how auto-reset's detached work ends
};

const [packageDir, stepsPath, resultPath] = process.argv.slice(2);
const dist = path.join(packageDir, "dist");
const bundles = readdirSync(dist);

async function find(name) {
  const stem = INTERNALS[name];
  const pattern = new RegExp(`^${stem}-[A-Za-z0-9_-]{8}\\.mjs$`);
  for (const file of bundles.filter((entry) => pattern.test(entry))) {
    const text = readFileSync(path.join(dist, file), "utf8");
    const exported = /export\s*\{([^}]*)\}/.exec(text)?.[1] ?? "";
    for (const item of exported.split(",").map((part) => part.trim())) {
      const [local, alias] = item.split(/\s+as\s+/);
      if (local === name) {
        const module = await import(pathToFileURL(path.join(dist, file)).href);
        return module[alias ?? local];
      }
    }
  }
  throw new Error(`OpenClaw's ${name} is not exported by dist/${stem}-*.mjs: update INTERNALS`);
}

const api = {};
for (const name of Object.keys(INTERNALS)) api[name] = await find(name);

const { workspaceDir, steps, agentId = "main" } = JSON.parse(readFileSync(stepsPath, "utf8"));
// What `openclaw hooks enable chitin` writes into openclaw.json.
const config = { hooks: { internal: { enabled: true, entries: { chitin: { enabled: true } } } } };

const prepared = await api.prepareInternalHooks(config, workspaceDir, { failureMode: "best-effort" });
prepared.commit({ initial: true });

async function settled() {
  // session:auto-reset runs its hooks as detached gateway work: wait until it is done.
  for (let n = 0; n < 600 && api.getActiveGatewayRootWorkCount() > 0; n++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function run(step) {
  if (step.do === "status") {
    const status = api.buildWorkspaceHookStatus(workspaceDir, { config });
    const hook = status.hooks.find((entry) => entry.name === "chitin");
    return {
      loadedCount: prepared.loadedCount,
      managedHooksDir: status.managedHooksDir,
      hook: hook && {
        loadable: hook.loadable,
        blockedReason: hook.blockedReason ?? null,
        events: hook.events,
        source: hook.source,
        missing: hook.missing,
      },
    };
  }
  if (step.do === "bootstrap") {
    const warnings = [];
    const started = performance.now();
    const { bootstrapFiles, contextFiles } = await api.resolveBootstrapContextForRun({
      workspaceDir,
      config,
      sessionKey: step.sessionKey,
      sessionId: step.sessionId,
      agentId,
      warn: (message) => warnings.push(message),
    });
    return {
      ms: performance.now() - started,
      bootstrapFiles: bootstrapFiles.map((file) => file.name),
      contextFiles, // what the prompt gets: [{path, content}]
      warnings,
    };
  }
  if (step.do === "new" || step.do === "reset") {
    const previous = step.previousSessionId ? { sessionId: step.previousSessionId } : undefined;
    await api.emitResetCommandHooks({
      action: step.do,
      ctx: {},
      cfg: config,
      command: { surface: "telegram", senderId: "someone", resetHookTriggered: false },
      sessionKey: step.sessionKey,
      sessionEntry: { sessionId: step.nextSessionId ?? "next-session" },
      previousSessionEntry: previous,
      workspaceDir,
    });
    return { fired: step.do };
  }
  if (step.do === "auto-reset") {
    api.emitSessionAutoResetHook({
      cfg: config,
      sessionId: step.sessionId,
      sessionKey: step.sessionKey,
      reason: step.reason,
      nextSessionId: "next-session",
      nextSessionKey: step.sessionKey,
      agentId,
      workspaceDir,
    });
    await settled();
    return { fired: "auto-reset" };
  }
  if (step.do === "shell") {
    execFileSync(step.argv[0], step.argv.slice(1), { stdio: ["ignore", "ignore", "inherit"] });
    return { ran: step.argv };
  }
  throw new Error(`unknown step ${JSON.stringify(step)}`);
}

const results = [];
for (const step of steps) results.push(await run(step));
writeFileSync(resultPath, JSON.stringify(results));
