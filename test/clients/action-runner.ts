import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { parse } from 'yaml';

/** The repository's root: where `uses: <owner>/<repo>@v1` checks the action out (GITHUB_ACTION_PATH). */
export const ACTION_PATH = resolve(__dirname, '..', '..');

interface ActionFile {
  inputs?: Record<string, { required?: boolean; default?: string }>;
  outputs?: Record<string, { value: string }>;
  runs: {
    using: string;
    steps: { id?: string; name?: string; shell?: string; run?: string; uses?: string; env?: Record<string, string>; 'working-directory'?: string }[];
  };
}

export interface ActionRun {
  /** The exit code of the step that failed, or 0. */
  code: number;
  stdout: string;
  stderr: string;
  /** The action's outputs, as the calling workflow's `steps.<id>.outputs` would see them. */
  outputs: Record<string, string>;
  /** Each step's raw $GITHUB_OUTPUT file. */
  outputFiles: Record<string, string>;
}

/** Reads a $GITHUB_OUTPUT file the way the runner does: `name=value` and `name<<DELIMITER` … `DELIMITER`. */
export function parseGithubOutput(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line === '') continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2], i + 1);
      if (end < 0) throw new Error(`$GITHUB_OUTPUT: ${heredoc[1]} has no closing ${heredoc[2]}`);
      out[heredoc[1]] = lines.slice(i + 1, end).join('\n');
      i = end;
      continue;
    }
    const eq = line.indexOf('=');
    if (eq < 0) throw new Error(`$GITHUB_OUTPUT: "${line}" is neither name=value nor name<<DELIMITER`);
    out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

/**
 * `${{ … }}` expressions as the runner evaluates them, for the few this action uses;
 * any other expression fails the test, so the file cannot grow one the test ignores.
 */
function evaluate(text: string, context: { inputs: Record<string, string>; actionPath: string; steps: Record<string, Record<string, string>> }): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_m, expr: string) => {
    let m = /^inputs\.([\w-]+)$/.exec(expr);
    if (m) return context.inputs[m[1]] ?? '';
    if (expr === 'github.action_path') return context.actionPath;
    m = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expr);
    if (m) return context.steps[m[1]]?.[m[2]] ?? '';
    throw new Error(`action.yml: the test runner does not know the expression \${{ ${expr} }}`);
  });
}

/** A script file run as GitHub's `shell: bash` runs it (GitLab's shell runner too runs with -e). */
export function runScript(
  script: string,
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    // GitHub's `shell: bash`: bash --noprofile --norc -eo pipefail {0}
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`action step did not finish in ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code: code ?? 1, stdout, stderr });
    });
  });
}

/**
 * Runs the composite action's `run` steps in order as GitHub's runner does: inputs
 * (with their defaults) substituted into `env`, `run` and `working-directory`, a
 * fresh $GITHUB_OUTPUT per step read back into `steps.<id>.outputs`, the job's
 * GITHUB_* variables in `githubEnv`, and the first failing step ending the run.
 * `uses:` steps (none today) would be skipped: nothing runs them here.
 */
export async function runAction(
  inputs: Record<string, string>,
  githubEnv: Record<string, string>,
  options: { workspace: string; timeoutMs?: number },
): Promise<ActionRun> {
  const action = parse(await readFile(join(ACTION_PATH, 'action.yml'), 'utf8')) as ActionFile;
  if (action.runs.using !== 'composite') throw new Error(`action.yml: runs.using is ${action.runs.using}, not composite`);
  const given: Record<string, string> = {};
  for (const [name, spec] of Object.entries(action.inputs ?? {})) {
    if (inputs[name] !== undefined) given[name] = inputs[name];
    else if (spec.required) throw new Error(`input ${name} is required`);
    else given[name] = spec.default ?? '';
  }
  for (const name of Object.keys(inputs)) if (!(name in given)) throw new Error(`action.yml has no input ${name}`);

  const scratch = await mkdtemp(join(tmpdir(), 'statichost-action-'));
  const steps: Record<string, Record<string, string>> = {};
  const outputFiles: Record<string, string> = {};
  let stdout = '';
  let stderr = '';
  try {
    for (const [index, step] of action.runs.steps.entries()) {
      if (step.run === undefined) continue;
      if (step.shell !== 'bash') throw new Error(`step ${step.name ?? index}: shell ${step.shell} (composite run steps must name one; this action uses bash)`);
      const context = { inputs: given, actionPath: ACTION_PATH, steps };
      const outputFile = join(scratch, `output-${index}`);
      const scriptFile = join(scratch, `step-${index}.sh`);
      await writeFile(outputFile, '');
      await writeFile(scriptFile, evaluate(step.run, context));
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? '',
        HOME: options.workspace,
        ...githubEnv,
        GITHUB_WORKSPACE: options.workspace,
        GITHUB_ACTION_PATH: ACTION_PATH,
        GITHUB_OUTPUT: outputFile,
        ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, evaluate(String(v), context)])),
      };
      const cwd = step['working-directory'] ? resolve(options.workspace, evaluate(step['working-directory'], context)) : options.workspace;
      const res = await runScript(scriptFile, cwd, env, options.timeoutMs ?? 60_000);
      stdout += res.stdout;
      stderr += res.stderr;
      const written = await readFile(outputFile, 'utf8');
      if (step.id) {
        outputFiles[step.id] = written;
        steps[step.id] = parseGithubOutput(written);
      }
      if (res.code !== 0) return { code: res.code, stdout, stderr, outputs: {}, outputFiles };
    }
    const outputs = Object.fromEntries(
      Object.entries(action.outputs ?? {}).map(([name, spec]) => [name, evaluate(spec.value, { inputs: given, actionPath: ACTION_PATH, steps })]),
    );
    return { code: 0, stdout, stderr, outputs, outputFiles };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
