import { readFileSync } from 'node:fs';
import { dbFile } from '../migrations-dir.js';
import { APP_SCHEMA, type Client, type Db } from './db.js';

// Who this connection is to the server, and what the team's set-up lets others do: the facts behind
// authorship (session_user where each person has a role), the privacy warning (a superuser or BYPASSRLS
// role reads every chat) and the schema warning (a member who can CREATE in the app's schema can plant
// a function or table that another member's agent would use).

/** The group role of the team's people (db/roles.sql). */
export const MEMBER_ROLE = 'agent_member';

export interface Identity {
  /** The role this connection logged in as (session_user). */
  role: string;
  superuser: boolean;
  bypassRls: boolean;
  /** A direct member of agent_member: one person's role, so the server records it as the author. */
  personal: boolean;
  /** The transaction is read-only (a standby, default_transaction_read_only). */
  readOnly: boolean;
}

const IDENTITY = `SELECT session_user AS role, r.rolsuper AS superuser, r.rolbypassrls AS bypass,
  pg_catalog.current_setting('transaction_read_only') AS ro,
  EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members m JOIN pg_catalog.pg_roles g ON g.oid = m.roleid
          WHERE g.rolname = '${MEMBER_ROLE}' AND m.member = r.oid) AS personal
  FROM pg_catalog.pg_roles r WHERE r.rolname = session_user`;

/** The first query of a store: it also makes the connection, so every way of failing to connect shows here. */
export async function identify(db: Db): Promise<Identity> {
  const client = await db.connect();
  let rows: unknown[];
  try {
    rows = (await client.query(IDENTITY)).rows;
  } finally {
    client.release();
  }
  const r = rows[0] as
    | { role: string; superuser: boolean; bypass: boolean; ro: string; personal: boolean }
    | undefined;
  return {
    role: r?.role ?? '',
    superuser: r?.superuser === true,
    bypassRls: r?.bypass === true,
    personal: r?.personal === true,
    readOnly: r?.ro === 'on',
  };
}

/** One line when the server does not keep this person's chats from others (or theirs from this one). */
export async function privacyWarning(db: Db, who: Identity, user: string): Promise<string | undefined> {
  if (who.superuser || who.bypassRls)
    return `You connect as "${who.role}", a ${who.superuser ? 'superuser' : 'BYPASSRLS role'}: every member's chats are visible to this role; give each person a role of their own (README, "Team database").`;
  // A role several people use: the server cannot tell them apart, so their chats are shared.
  const others = await db
    .one<{ n: number }>(
      `SELECT count(DISTINCT created_by) AS n FROM chat_sessions
       WHERE owner_role = session_user AND created_by IS DISTINCT FROM $1`,
      [user],
    )
    .catch(() => undefined);
  if (!who.personal && others && others.n > 0)
    return `The role "${who.role}" is shared with ${others.n} other ${others.n === 1 ? 'person' : 'people'}: chats under it are visible to each of them; give each person a role of their own (README, "Team database").`;
  return undefined;
}

/** Roles besides the schema's owner and superusers that may CREATE in the app's schema ('PUBLIC': everyone). */
export async function schemaCreators(db: Db): Promise<string[]> {
  const found = await db.query<{ who: string }>(
    `SELECT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE pg_catalog.pg_get_userbyid(a.grantee) END AS who
     FROM pg_catalog.pg_namespace n,
       pg_catalog.aclexplode(coalesce(n.nspacl, pg_catalog.acldefault('n', n.nspowner))) a
     WHERE n.nspname = $1 AND a.privilege_type = 'CREATE' AND a.grantee <> n.nspowner
       AND NOT coalesce((SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.oid = a.grantee), false)
     ORDER BY 1`,
    [APP_SCHEMA],
  );
  return found.map((r) => r.who);
}

/** The warning for `agent db status` and `agent db migrate`, when anyone but the owner can CREATE. */
export async function schemaWarning(db: Db): Promise<string | undefined> {
  const creators: string[] = await schemaCreators(db).catch(() => []);
  if (creators.length === 0) return undefined;
  const who = creators.includes('PUBLIC') ? 'every role' : creators.join(', ');
  return `${who} can create objects in the schema "${APP_SCHEMA}": a member could plant a table or function there that another's agent would use; the schema's owner should run: REVOKE CREATE ON SCHEMA ${APP_SCHEMA} FROM ${creators.includes('PUBLIC') ? 'PUBLIC' : creators.join(', ')};`;
}

/**
 * Gives agent_member (when the team's roles exist) exactly what db/grants.sql says, inside the
 * migration's transaction; false when there is no such role, or this role does not own the tables.
 */
export async function applyGrants(c: Client): Promise<boolean> {
  const { rows } = await c.query(
    `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = $1) AS team,
       pg_catalog.pg_has_role(current_user, c.relowner, 'USAGE') AS owner
     FROM pg_catalog.pg_class c WHERE c.oid = pg_catalog.to_regclass('${APP_SCHEMA}.usage_ledger')`,
    [MEMBER_ROLE],
  );
  const r = rows[0] as { team: boolean; owner: boolean } | undefined;
  if (!r?.team || !r.owner) return false;
  await c.query(readFileSync(dbFile('grants.sql'), 'utf8'));
  return true;
}
