import { Command, CommanderError, Option } from 'commander';

import { analyticsCommand } from './commands/analytics';
import { authCommands } from './commands/auth';
import { buildCommands } from './commands/builds';
import { ciCommands } from './commands/ci';
import { deployCommand } from './commands/deploy';
import { deploymentCommands } from './commands/deployments';
import { envCommands } from './commands/env';
import { gitCommands } from './commands/git';
import { leadCommands } from './commands/leads';
import { previewCommands } from './commands/previews';
import { projectCommands } from './commands/projects';
import { siteCommands } from './commands/site';
import { tokenCommands } from './commands/tokens';
import { cliErrorBody, Context, describeFailure, type Io, VERSION } from './context';

/** The `statichost` program: every command, global flags, and errors turned into exit codes. */
export function buildProgram(io: Io, json = false): Command {
  const program = new Command('statichost')
    .description('Deploy static sites to a statichost service, and manage projects, deployments, builds from Git, tokens, leads and analytics')
    .version(VERSION)
    .addOption(new Option('--token <token>', 'API token (default: $STATICHOST_TOKEN, then the one saved by login)'))
    .addOption(new Option('--api-url <url>', 'API address (default: $STATICHOST_API_URL, then the one saved by login, then http://localhost:3000)'))
    .option('--json', 'print JSON for scripts instead of tables', false)
    .showHelpAfterError(json ? false : '(statichost --help lists the commands)')
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Under --json a usage error is printed once, as JSON, by main().
      outputError: (s, write) => {
        if (!json) write(s);
      },
    })
    .exitOverride();

  authCommands(program, io);
  deployCommand(program, io);
  projectCommands(program, io);
  deploymentCommands(program, io);
  siteCommands(program, io);
  tokenCommands(program, io);
  leadCommands(program, io);
  analyticsCommand(program, io);
  gitCommands(program, io);
  buildCommands(program, io);
  envCommands(program, io);
  previewCommands(program, io);
  ciCommands(program, io);

  program
    .command('mcp')
    .description('Run a Model Context Protocol server on stdio, so AI agents can deploy and manage sites with the same token')
    .action(async (_opts, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      // Loaded on demand: the MCP SDK is not needed by the other commands.
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on-demand load keeps the other commands' start fast
      const { runStdioServer } = require('../mcp/server') as typeof import('../mcp/server');
      await runStdioServer(ctx.client());
    });

  for (const cmd of program.commands) {
    cmd.exitOverride().configureOutput(program.configureOutput());
    for (const sub of cmd.commands) sub.exitOverride().configureOutput(program.configureOutput());
  }
  return program;
}

/**
 * Runs the CLI; resolves to the exit code: 0 success, 1 the operation failed (the
 * API's message is printed), 2 the command line was wrong.
 */
export async function main(argv: string[], io: Io): Promise<number> {
  const json = argv.includes('--json');
  const program = buildProgram(io, json);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and --version "fail" with exit code 0; commander has printed what it had to.
      if (err.exitCode === 0) return 0;
      if (json) io.stderr.write(`${JSON.stringify(cliErrorBody(err.message.replace(/^error: /, ''), 'usage_error', 2))}\n`);
      return 2;
    }
    const { text, exitCode } = describeFailure(err, json);
    io.stderr.write(`${text}\n`);
    return exitCode;
  }
}

if (require.main === module) {
  main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env }).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
