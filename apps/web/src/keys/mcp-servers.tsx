import { useApi } from '../api/api-context';
import { unwrap } from '../api/api-error';
import { ErrorBanner } from '../components/error-banner';
import { useLoad } from '../components/use-load';
import { CopyButton } from './copy-button';

/** What an MCP client (Claude Desktop, Cursor, VS Code…) needs: the server's URL and a key with the mcp scope. */
export function clientConfig(name: string, url: string): string {
  const entry = { type: 'http', url, headers: { Authorization: 'Bearer <an API key with the mcp scope>' } };
  return JSON.stringify({ mcpServers: { [name.toLowerCase().replace(/[^a-z0-9]+/g, '-')]: entry } }, null, 2);
}

export function McpServers() {
  const { client } = useApi();
  const servers = useLoad(() => unwrap(client.GET('/mcp-servers', { params: { query: { limit: 200 } } })), []);
  return (
    <section aria-labelledby="servers-title">
      <h2 id="servers-title">Published MCP servers</h2>
      <ErrorBanner error={servers.error} />
      {servers.data?.items.length === 0 && <p className="muted">No published servers yet: create one with POST /mcp-servers.</p>}
      {(servers.data?.items ?? []).map((server) => {
        const config = clientConfig(server.name, server.url);
        return (
          <article key={server.id} className="panel" data-server={server.id}>
            <h3>{server.name}</h3>
            {server.description && <p className="muted">{server.description}</p>}
            <div className="actions">
              <code>{server.url}</code>
              <CopyButton text={server.url} label="Copy URL" />
            </div>
            <p className="muted">Tools: {server.tools.map((tool) => tool.name).join(', ') || 'none'}</p>
            <h4>Client configuration</h4>
            <pre>{config}</pre>
            <CopyButton text={config} label="Copy configuration" />
          </article>
        );
      })}
    </section>
  );
}
