import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { connectionConfig } from '../../src/store/postgres/config.js';
import { maskPassword, unencodedUserinfo, urlScheme, withoutPassword } from '../../src/store/url.js';

// Database URLs: the password never shown, whatever it holds; one that must be percent-encoded is said
// so (without showing it); what libpq's URL parameters ask for reaches the driver, and an unknown one is
// refused rather than dropped.

const env = {};

describe('database URLs as shown', () => {
  it.each([
    ['postgres://a:secret@h:5432/db', 'postgres://a:***@h:5432/db', 'postgres://a@h:5432/db'],
    ['postgres://a:pa/ss@host/db', 'postgres://a:***@host/db', 'postgres://a@host/db'],
    ['postgres://a:p@ss/w0rd#x@host/db', 'postgres://a:***@host/db', 'postgres://a@host/db'],
    ['postgre://a:TOPSECRET@h/db', 'postgre://a:***@h/db', 'postgre://a@h/db'],
    [
      'postgres://h/db?password=secret&sslmode=require',
      'postgres://h/db?password=***&sslmode=require',
      'postgres://h/db?sslmode=require',
    ],
    [
      'postgres://h/db?application_name=me@x',
      'postgres://h/db?application_name=me@x',
      'postgres://h/db?application_name=me@x',
    ],
  ])('%s', (url, masked, without) => {
    expect(maskPassword(url)).toBe(masked);
    expect(withoutPassword(url)).toBe(without);
  });

  it('knows a URL by its scheme, and a path has none', () => {
    expect(urlScheme('postgress://x@h/db')).toBe('postgress');
    expect(urlScheme('/home/a/agent.db')).toBeUndefined();
    expect(urlScheme('C:\\agent.db')).toBeUndefined();
  });
});

describe('a password that must be percent-encoded', () => {
  it.each(['postgres://a:pa/ss@host/db', 'postgres://a:p@ss/w0rd#x@host/db', 'postgres://a:50%off@h/db'])(
    'is refused, saying to encode it, without showing it: %s',
    (url) => {
      expect(unencodedUserinfo(url)).toMatch(/must be percent-encoded .*encodeURIComponent/);
      const failure = (() => {
        try {
          connectionConfig(url, env);
        } catch (error) {
          return error;
        }
      })();
      expect(failure).toBeInstanceOf(ConfigError);
      const message = (failure as Error).message;
      expect(message).toMatch(/^The user name or password in the database URL postgres:\/\/a:\*\*\*@/);
      expect(message).not.toMatch(/pa\/ss|w0rd|50%off/);
      expect(message.split('\n')).toHaveLength(1);
    },
  );

  it('works percent-encoded: / @ # % reach the server as they are', () => {
    const password = 'p@ss/w0rd#x%y?';
    const { config } = connectionConfig(`postgres://a:${encodeURIComponent(password)}@h/db`, env);
    expect(config).toMatchObject({ user: 'a', host: 'h', database: 'db', password });
  });
});

describe('URL parameters', () => {
  it('passes options, application_name, keepalives and client_encoding to the driver', () => {
    const { config, sessionAttrs } = connectionConfig(
      'postgres://a@h/db?options=-c%20default_transaction_read_only%3Don&application_name=team-bot&keepalives=1&keepalives_idle=30&client_encoding=UTF8&target_session_attrs=read-write',
      env,
    );
    expect(config).toMatchObject({
      options: '-c default_transaction_read_only=on',
      application_name: 'team-bot',
      keepAlive: true,
      keepAliveInitialDelayMillis: 30_000,
      client_encoding: 'UTF8',
    });
    expect(sessionAttrs).toBe('read-write');
    expect(connectionConfig('postgres://a@h/db?keepalives=0', env).config.keepAlive).toBe(false);
    expect(connectionConfig('postgres://a@h/db', env).config.application_name).toBe('agent');
  });

  it('refuses a parameter it does not know, or a bad target_session_attrs, with the password masked', () => {
    expect(() => connectionConfig('postgres://a:s3cret@h/db?sslmod=require', env)).toThrow(
      /^The database URL postgres:\/\/a:\*\*\*@h\/db\?sslmod=require cannot be used: agent does not know the parameter sslmod/,
    );
    expect(() => connectionConfig('postgres://a:s3cret@h/db?target_session_attrs=writable', env)).toThrow(
      /target_session_attrs must be one of any, read-write/,
    );
  });
});
