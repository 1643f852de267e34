// chitin's OpenClaw hook (installed by `chitin hooks install openclaw`).
//
// agent:bootstrap            -> PERSONALITY.md from `chitin render`, added to the bootstrap files
// command:new, command:reset -> `chitin reflect --queue`, so the session is reflected on later
//
// chitin runs asynchronously (the gateway is never blocked), with its arguments as a
// list (no shell) and a timeout. Every failure is swallowed: the agent always goes on.

import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const BUDGET = "5000"; // tokens
const DEFAULT_TIMEOUT_MS = 5000;
const PERSONALITY = "PERSONALITY.md";
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;
const HERE = path.dirname(fileURLToPath(import.meta.url));

// The first hint whose name appears in the session key says where the agent talks.
const CHANNEL_HINTS = [
  ["telegram", "telegram chat"],
  ["discord", "discord group chat"],
  ["slack", "slack work chat"],
  ["webchat", "webchat direct conversation"],
  ["subagent", "sub-agent task execution"],
];
// Folder names that say nothing about the work done in them.
const GENERIC_FOLDERS = new Set(["workspace", "clawd", ""]);

function debug(...args) {
  if (process.env.CHITIN_DEBUG) console.error("[chitin]", ...args);
}

function timeoutMs() {
  const value = Number.parseInt(process.env.CHITIN_HOOK_TIMEOUT_MS ?? "", 10);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_TIMEOUT_MS;
}

// The chitin to run: $CHITIN_BIN; else the chitin that installed this hook, by absolute
// path (chitin.json, written by `chitin hooks install openclaw`), since the gateway's
// PATH may not hold a virtual environment's chitin; else `chitin` on PATH.
function chitinCommand() {
  if (process.env.CHITIN_BIN) return [process.env.CHITIN_BIN];
  try {
    const { command } = JSON.parse(readFileSync(path.join(HERE, "chitin.json"), "utf8"));
    const valid = Array.isArray(command) && command.length > 0;
    if (valid && command.every((part) => typeof part === "string") && existsSync(command[0])) {
      return command;
    }
  } catch {
    // not installed by chitin, or unreadable: chitin on PATH
  }
  return ["chitin"];
}

// Run chitin; resolve with its stdout, or with null on any failure. Never rejects.
function runChitin(args) {
  const [program, ...prefix] = chitinCommand();
  const verb = args[0];
  return new Promise((resolve) => {
    let settled = false;
    let child;
    const finish = (value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const timer = setTimeout(() => {
      debug(`${program} ${verb} took longer than ${timeoutMs()} ms; stopped`);
      stop(child);
      finish(null);
    }, timeoutMs());
    try {
      child = execFile(
        program,
        [...prefix, ...args],
        { maxBuffer: MAX_OUTPUT_BYTES, windowsHide: true, detached: process.platform !== "win32" },
        (error, stdout, stderr) => {
          if (error) {
            debug(`${program} ${verb} failed: ${error.message}`, String(stderr ?? "").trim());
            finish(null);
          } else {
            finish(String(stdout));
          }
        },
      );
      child.on("error", (error) => {
        debug(`${program} could not run: ${error.message}`);
        finish(null);
      });
    } catch (error) {
      debug(`${program} could not run: ${error?.message ?? error}`);
      finish(null);
    }
  });
}

// Kill chitin and anything it started (it runs in a process group of its own), and
// let go of its pipes, so that nothing it left behind keeps the gateway waiting.
function stop(child) {
  if (!child) return;
  try {
    if (process.platform !== "win32" && child.pid) process.kill(-child.pid, "SIGKILL");
    else child.kill("SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
  child.stdout?.destroy();
  child.stderr?.destroy();
}

function sessionQuery(event, context) {
  const parts = [];
  if (context.agentId) parts.push(`agent: ${context.agentId}`);
  const key = String(event.sessionKey || context.sessionKey || "").toLowerCase();
  const hint = CHANNEL_HINTS.find(([needle]) => key.includes(needle));
  if (hint) parts.push(hint[1]);
  const folder = context.workspaceDir ? path.basename(String(context.workspaceDir)) : "";
  if (!GENERIC_FOLDERS.has(folder.toLowerCase())) parts.push(`workspace ${folder}`);
  return parts.length > 0 ? parts.join(", ") : "general assistant session";
}

function hasPersonality(files) {
  return files.some((file) => file && file.name === PERSONALITY);
}

async function bootstrap(event) {
  const context = event.context ?? {};
  const files = context.bootstrapFiles;
  if (!Array.isArray(files)) return;
  // OpenClaw caches and reuses this list: inject once, without even running chitin again.
  if (hasPersonality(files)) return;
  const workspace = String(context.workspaceDir || context.repo || os.homedir());
  const text = await runChitin(["render", "--query", sessionQuery(event, context), "--budget", BUDGET]);
  if (typeof text !== "string" || !text.trim()) return;
  if (hasPersonality(files)) return; // another bootstrap of this list finished first
  files.push({ name: PERSONALITY, path: path.join(workspace, PERSONALITY), content: text, missing: false });
}

async function queueReflection(event) {
  const key = String(event.sessionKey || "unknown");
  await runChitin(["reflect", "--queue", "--session-key", key, "--reason", event.action]);
}

export default async function chitinHook(event) {
  try {
    if (!event || typeof event !== "object") return;
    if (event.type === "agent" && event.action === "bootstrap") {
      await bootstrap(event);
    } else if (event.type === "command" && (event.action === "new" || event.action === "reset")) {
      await queueReflection(event);
    }
  } catch (error) {
    debug("hook failed:", error?.message ?? error);
  }
}
