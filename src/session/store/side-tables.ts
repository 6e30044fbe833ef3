/**
 * The session's side tables: the notes its tools keep (`memory_save`, `memory_list`), its lasting
 * permission rules, and the client message ids a door has taken (AG-UI's). JSON read back goes
 * through the zod schemas.
 */
import { permissionRuleSchema, type PermissionRule } from '../../tools/permission-rules';
import type { Note, NotesStore } from '../../tools/types';
import type { SessionMeta } from './meta';

export class SideTables implements NotesStore {
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly meta: SessionMeta,
  ) {}

  private get sql(): SqlStorage {
    return this.storage.sql;
  }

  save(text: string): Note {
    const savedAt = this.meta.now();
    this.meta.ensure('notes');
    const row = this.sql.exec<{ id: number }>(`INSERT INTO notes (text, saved_at) VALUES (?, ?) RETURNING id`, text, savedAt).one();
    return { id: row.id, text, savedAt: new Date(savedAt).toISOString() };
  }

  list(): Note[] {
    if (!this.meta.has('notes')) return [];
    return this.sql
      .exec<{ id: number; text: string; saved_at: number }>(`SELECT id, text, saved_at FROM notes ORDER BY id`)
      .toArray()
      .map((row) => ({ id: row.id, text: row.text, savedAt: new Date(row.saved_at).toISOString() }));
  }

  /** The session's lasting permission rules, oldest first (read back through their schema). */
  rules(): PermissionRule[] {
    if (!this.meta.has('permission_rules')) return [];
    return this.sql
      .exec<{ tool_name: string; rule_content: string; behavior: string; source: string }>(`SELECT tool_name, rule_content, behavior, source FROM permission_rules ORDER BY id`)
      .toArray()
      .map((row) => permissionRuleSchema().parse(row));
  }

  addRules(rules: PermissionRule[]): void {
    if (rules.length > 0) this.meta.ensure('permission_rules');
    for (const rule of rules) {
      this.sql.exec(
        `INSERT INTO permission_rules (tool_name, rule_content, behavior, source, created_at) VALUES (?, ?, ?, ?, ?)`,
        rule.tool_name,
        rule.rule_content,
        rule.behavior,
        rule.source,
        this.meta.now(),
      );
    }
  }

  /** Which of these client message ids (AG-UI's) the session has taken. One bound value, any count. */
  seenMessageIds(ids: string[]): Set<string> {
    if (ids.length === 0 || !this.meta.has('door_message_ids')) return new Set();
    const rows = this.sql.exec<{ id: string }>(`SELECT id FROM door_message_ids WHERE id IN (SELECT value FROM json_each(?))`, JSON.stringify(ids));
    return new Set(rows.toArray().map((row) => row.id));
  }

  rememberMessageIds(ids: string[]): void {
    if (ids.length === 0) return;
    this.meta.ensure('door_message_ids');
    this.sql.exec(`INSERT OR IGNORE INTO door_message_ids (id) SELECT value FROM json_each(?)`, JSON.stringify(ids));
  }
}
