import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { useTempDir } from '../../test/helpers/temp-dir';
import { configPath, readConfig, resolveSettings, writeConfig } from './config';

describe('CLI config', () => {
  it('lives in the platform’s user config folder unless STATICHOST_CONFIG says otherwise', () => {
    expect(configPath({ HOME: '/home/a' }, 'linux')).toBe('/home/a/.config/statichost/config.json');
    expect(configPath({ HOME: '/home/a', XDG_CONFIG_HOME: '/xdg' }, 'linux')).toBe('/xdg/statichost/config.json');
    expect(configPath({ HOME: '/Users/a' }, 'darwin')).toBe('/Users/a/Library/Application Support/statichost/config.json');
    expect(configPath({ HOME: '/h', APPDATA: 'C:\\AppData' }, 'win32')).toContain('statichost');
    expect(configPath({ STATICHOST_CONFIG: '/tmp/x.json' }, 'linux')).toBe('/tmp/x.json');
  });

  it('prefers flags, then the environment, then the file', () => {
    const stored = { token: 'sk_file', apiUrl: 'http://file' };
    expect(resolveSettings({}, {}, {})).toEqual({ apiUrl: 'http://localhost:3000' });
    expect(resolveSettings({}, {}, stored)).toEqual({ token: 'sk_file', tokenSource: 'config', apiUrl: 'http://file' });
    expect(resolveSettings({}, { STATICHOST_TOKEN: 'sk_env', STATICHOST_API_URL: 'http://env/' }, stored)).toEqual({
      token: 'sk_env',
      tokenSource: 'env',
      apiUrl: 'http://env',
    });
    expect(resolveSettings({ token: 'sk_flag', apiUrl: 'http://flag' }, { STATICHOST_TOKEN: 'sk_env' }, stored)).toEqual({
      token: 'sk_flag',
      tokenSource: 'flag',
      apiUrl: 'http://flag',
    });
  });

  describe('on disk', () => {
    const dir = useTempDir('cli-config-');

    it('writes the token readable by its owner only, even over a wider file', async () => {
      const path = join(dir(), 'nested', 'config.json');
      await writeConfig(path, { token: 'sk_live_x', apiUrl: 'http://a' });
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect((await stat(join(dir(), 'nested'))).mode & 0o777).toBe(0o700);
      expect(await readConfig(path)).toEqual({ token: 'sk_live_x', apiUrl: 'http://a' });
      await writeFile(path, '{}', { mode: 0o644 });
      await writeConfig(path, { token: 'sk_live_y' });
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ token: 'sk_live_y' });
    });

    it('reads a missing file as empty and names a corrupt one', async () => {
      expect(await readConfig(join(dir(), 'none.json'))).toEqual({});
      await writeFile(join(dir(), 'bad.json'), '{nope');
      await expect(readConfig(join(dir(), 'bad.json'))).rejects.toThrow(/bad\.json is not valid JSON/);
    });
  });
});
