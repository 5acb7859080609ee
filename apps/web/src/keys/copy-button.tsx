import { useState } from 'react';

/** Copies text to the clipboard (a secure context: https, or http on a loopback address). */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<boolean | undefined>();
  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <button type="button" onClick={copy}>
      {copied === undefined ? label : copied ? 'Copied' : 'Copy refused: select the text'}
    </button>
  );
}
