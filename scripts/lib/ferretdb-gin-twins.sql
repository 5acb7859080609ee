-- GIN twins of FerretDB v1's indexes, for the embedded store (FerretDB v1 on PostgreSQL).
--
-- FerretDB v1.24 pushes an equality filter down to PostgreSQL as `_jsonb->$1 @> $2`
-- (internal/backends/postgresql/query.go, filterEqual), but the indexes it creates for
-- createIndexes are btree indexes on `(_jsonb -> 'key')`, which no `@>` can use: every find by
-- `_id`, `runId`, `status`… was a sequential scan whose cost grew with the collection. A GIN index
-- (jsonb_path_ops) on the same expression serves `@>`, and PostgreSQL's custom plans substitute
-- the key parameter, so FerretDB's own queries use it unchanged. For each btree index FerretDB
-- makes on a document key (its first key), this makes that GIN twin: at once for the indexes that
-- exist, and from then on through an event trigger on CREATE INDEX. FerretDB does not know of the
-- twins; dropping a collection drops them with its table. Idempotent: run on every start.

SET client_min_messages = warning;

CREATE OR REPLACE FUNCTION mcpflow_gin_twin(btree_index oid) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
  target record;
  expression text;
BEGIN
  SELECT n.nspname AS schema_name, t.relname AS table_name, am.amname AS method
    INTO target
    FROM pg_index ix
    JOIN pg_class c ON c.oid = ix.indexrelid
    JOIN pg_am am ON am.oid = c.relam
    JOIN pg_class t ON t.oid = ix.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
   WHERE ix.indexrelid = btree_index;
  IF NOT FOUND OR target.method <> 'btree' THEN
    RETURN;
  END IF;
  expression := pg_get_indexdef(btree_index, 1, true);
  -- Only a top-level key of FerretDB's document column, e.g. (_jsonb -> '_id'::text).
  IF expression !~ '^\(_jsonb -> ''[^'']+''::text\)$' THEN
    RETURN;
  END IF;
  EXECUTE format(
    'CREATE INDEX IF NOT EXISTS %I ON %I.%I USING gin (%s jsonb_path_ops) WITH (fastupdate = off)',
    left(target.table_name, 40) || '_' || left(md5(expression), 10) || '_gin',
    target.schema_name, target.table_name, expression);
END
$fn$;

CREATE OR REPLACE FUNCTION mcpflow_gin_twins_on_create_index() RETURNS event_trigger
LANGUAGE plpgsql AS $fn$
DECLARE
  command record;
BEGIN
  FOR command IN SELECT objid FROM pg_event_trigger_ddl_commands() WHERE object_type = 'index' LOOP
    PERFORM mcpflow_gin_twin(command.objid);
  END LOOP;
END
$fn$;

DROP EVENT TRIGGER IF EXISTS mcpflow_gin_twins;
CREATE EVENT TRIGGER mcpflow_gin_twins ON ddl_command_end WHEN TAG IN ('CREATE INDEX')
  EXECUTE FUNCTION mcpflow_gin_twins_on_create_index();

-- The indexes made before this ran (an existing data folder).
SELECT count(mcpflow_gin_twin(ix.indexrelid)) AS btree_indexes_seen
  FROM pg_index ix
  JOIN pg_class c ON c.oid = ix.indexrelid
  JOIN pg_am am ON am.oid = c.relam
 WHERE am.amname = 'btree';
