import { StatichostApiError, StatichostConnectionError } from '../sdk';
import { CliError, describeFailure } from './context';

describe('describeFailure', () => {
  const apiBody = {
    statusCode: 402,
    error: 'Payment Required',
    message: 'The free plan allows 3 projects',
    code: 'quota_exceeded',
    quota: 'projects',
    requestId: 'r1',
  };

  it('prints the API’s error body unchanged under --json, exit 1', () => {
    const err = new StatichostApiError(402, apiBody, 'fallback');
    expect(describeFailure(err, true)).toEqual({ text: JSON.stringify(apiBody), exitCode: 1 });
    expect(describeFailure(err, false)).toEqual({ text: 'Error: The free plan allows 3 projects (HTTP 402, quota_exceeded)', exitCode: 1 });
  });

  it('gives failures the CLI found itself the same shape, with its own code and exit code', () => {
    expect(JSON.parse(describeFailure(new CliError('pass --email', 2, 'no_email'), true).text)).toEqual({
      statusCode: null,
      error: 'Usage Error',
      message: 'pass --email',
      code: 'no_email',
    });
    expect(describeFailure(new CliError('pass --email', 2, 'no_email'), true).exitCode).toBe(2);
    expect(JSON.parse(describeFailure(new CliError('no such project'), true).text)).toMatchObject({ statusCode: null, error: 'CLI Error', code: 'cli_error' });
    const offline = new StatichostConnectionError('http://127.0.0.1:1', new Error('ECONNREFUSED'));
    expect(describeFailure(offline, true)).toMatchObject({ exitCode: 1 });
    expect(JSON.parse(describeFailure(offline, true).text)).toMatchObject({ statusCode: null, code: 'connection_failed' });
  });

  it('says which scope to ask for on a 403 insufficient_scope', () => {
    const err = new StatichostApiError(403, { statusCode: 403, message: 'This token lacks the admin scope', code: 'insufficient_scope' }, 'x');
    expect(describeFailure(err, false).text).toContain('statichost login --scopes deploy,read,admin,delete');
  });
});
