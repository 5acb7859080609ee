import { useMemo, useState } from 'react';
import { Link, Redirect, Route, Router, Switch } from 'wouter';
import { useHashLocation } from 'wouter/use-hash-location';
import { ApiProvider, type Api } from './api/api-context';
import { clientFor, forgetKey, storedKey, storeKey } from './api/session';
import { EditorPage } from './editor/editor-page';
import { KeysPage } from './keys/keys-page';
import { SignIn } from './sign-in';
import { RunPage } from './runs/run-page';
import { RunsPage } from './runs/runs-page';
import { ToolsetPage } from './toolsets/toolset-page';
import { ToolsetsPage } from './toolsets/toolsets-page';
import { WorkflowPage } from './workflows/workflow-page';
import { WorkflowsPage } from './workflows/workflows-page';

const SECTIONS: [string, string][] = [
  ['/runs', 'Runs'],
  ['/workflows', 'Workflows'],
  ['/toolsets', 'Toolsets'],
  ['/keys', 'Keys and servers'],
];

/** The console: a key pasted once (kept for this tab), then the pages; routes live in the URL's hash. */
export function App() {
  const [key, setKey] = useState(storedKey);
  const api = useMemo<Api | undefined>(
    () =>
      key
        ? {
            client: clientFor(key),
            key,
            signOut: () => {
              forgetKey();
              setKey(null);
            },
          }
        : undefined,
    [key],
  );
  if (!api)
    return (
      <SignIn
        onKey={(value) => {
          storeKey(value);
          setKey(value);
        }}
      />
    );
  return (
    <ApiProvider api={api}>
      <Router hook={useHashLocation}>
        <a className="skip" href="#main" onClick={(event) => (event.preventDefault(), document.getElementById('main')?.focus())}>
          Skip to content
        </a>
        <header className="topbar">
          <span className="brand">mcpflow</span>
          <nav aria-label="Sections">
            {SECTIONS.map(([href, label]) => (
              <Link key={href} href={href} className={(active: boolean) => (active ? 'active' : '')}>
                {label}
              </Link>
            ))}
          </nav>
          <button type="button" className="link" onClick={api.signOut}>
            Forget key
          </button>
        </header>
        <main id="main" tabIndex={-1}>
          <Switch>
            <Route path="/runs">{() => <RunsPage />}</Route>
            <Route path="/runs/:id">{(params) => <RunPage id={params.id} />}</Route>
            <Route path="/workflows">{() => <WorkflowsPage />}</Route>
            <Route path="/workflows/new">{() => <EditorPage />}</Route>
            <Route path="/workflows/:id/edit">{(params) => <EditorPage id={params.id} />}</Route>
            <Route path="/workflows/:id">{(params) => <WorkflowPage id={params.id} />}</Route>
            <Route path="/toolsets">{() => <ToolsetsPage />}</Route>
            <Route path="/toolsets/:id">{(params) => <ToolsetPage id={params.id} />}</Route>
            <Route path="/keys">{() => <KeysPage />}</Route>
            <Route>
              <Redirect to="/runs" />
            </Route>
          </Switch>
        </main>
      </Router>
    </ApiProvider>
  );
}
