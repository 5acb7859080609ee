import { useEffect, useState } from 'react';
import type { components } from '#client';
import { useApi } from '../api/api-context';
import { ApiError, unwrap } from '../api/api-error';
import { ErrorBanner } from '../components/error-banner';
import { formatTime } from '../components/format';

type AuthState = components['schemas']['ToolsetAuthState'];

/** How often the page asks whether the person finished authorizing in the other tab. */
const POLL_MS = 1000;

interface Props {
  toolsetId: string;
  auth: AuthState;
  /** Called once the toolset is authorized (its tools are listed by then): the page reads it again. */
  onAuthorized(): void;
}

/**
 * An OAuth toolset's state, and for one that needs it the **Authorize** button: POST
 * /toolsets/:id/authorize gives the authorization server's URL, opened in a new tab; the page then
 * reads the toolset every second until its state is `authorized` (the callback in the other tab
 * stored the grant and listed the tools).
 */
export function OAuthState({ toolsetId, auth, onAuthorized }: Props) {
  const { client } = useApi();
  const [url, setUrl] = useState<string>();
  const [expiresAt, setExpiresAt] = useState<number>();
  const [state, setState] = useState(auth.state);
  const [error, setError] = useState<unknown>();
  const waiting = url !== undefined && state !== 'authorized';

  useEffect(() => setState(auth.state), [auth.state]);
  useEffect(() => {
    if (!waiting) return;
    const timer = setInterval(() => {
      // The URL works once, until it expires: nobody can finish with it after that, so stop asking.
      if (expiresAt !== undefined && Date.now() > expiresAt) {
        setUrl(undefined);
        setError(new ApiError(0, 'OAUTH_STATE_INVALID', 'The authorization URL expired before it was used: authorize again.'));
        return;
      }
      unwrap(client.GET('/toolsets/{id}', { params: { path: { id: toolsetId } } })).then((toolset) => {
        if (toolset.auth?.state !== 'authorized') return;
        setState('authorized');
        onAuthorized();
      }, setError);
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [waiting, expiresAt, client, toolsetId, onAuthorized]);

  const authorize = async () => {
    setError(undefined);
    // Opened now, while the click still counts as one (a tab opened after an await is a blocked pop-up),
    // and cut from this page: the authorization server's page gets no handle on the console.
    const tab = window.open('about:blank', '_blank');
    if (tab) tab.opener = null;
    try {
      const answer = await unwrap(client.POST('/toolsets/{id}/authorize', { params: { path: { id: toolsetId } } }));
      if (!answer.authorizationUrl) {
        tab?.close();
        setState(answer.state);
        onAuthorized();
        return;
      }
      if (tab) tab.location.href = answer.authorizationUrl;
      setExpiresAt(answer.expiresAt ? Date.parse(answer.expiresAt) : undefined);
      setUrl(answer.authorizationUrl);
    } catch (caught) {
      tab?.close();
      setError(caught);
    }
  };

  return (
    <div className="oauth-state">
      <p>
        OAuth ({auth.grant.replace('_', ' ')}):{' '}
        <span className={`badge ${state === 'authorized' ? 'status-succeeded' : 'status-waiting'}`} data-testid="oauth-state">
          {state}
        </span>
        {state === 'authorized' && auth.expiresAt && <span className="muted"> · token renewed before {formatTime(auth.expiresAt)}</span>}
        {state !== 'authorized' && auth.reason && <span className="muted"> · {auth.reason}</span>}
      </p>
      {state === 'needs_authorization' && (
        <div className="actions">
          <button type="button" className="primary" onClick={() => void authorize()}>
            {url ? 'Authorize again' : 'Authorize'}
          </button>
        </div>
      )}
      {waiting && (
        <p role="status">
          Waiting for the authorization in the other tab…{' '}
          <a href={url} target="_blank" rel="noopener noreferrer">
            Open the authorization page
          </a>{' '}
          if no tab opened.
        </p>
      )}
      <ErrorBanner error={error} />
    </div>
  );
}
