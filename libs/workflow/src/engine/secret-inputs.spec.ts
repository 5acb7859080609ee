import { describe, expect, it } from '@jest/globals';
import {
  headerTemplateInputs,
  renderHeaders,
  secretInputKeys,
  SecretInputMissingError,
  splitSecretInputs,
  staticHeaders,
} from './secret-inputs.js';

describe('header templates over secret run inputs', () => {
  const headers = { Authorization: 'Bearer {{ inputs.userToken }}', 'X-Tenant': '{{inputs.tenant}}-{{inputs.userToken}}', 'X-Static': 'k' };

  it('names the inputs the headers use, renders them, and leaves templated headers out without a run', () => {
    expect(headerTemplateInputs(headers)).toEqual(['userToken', 'tenant']);
    expect(renderHeaders(headers, { userToken: 't-1', tenant: 'acme' })).toEqual({
      Authorization: 'Bearer t-1',
      'X-Tenant': 'acme-t-1',
      'X-Static': 'k',
    });
    expect(staticHeaders(headers)).toEqual({ 'X-Static': 'k' });
    expect(() => renderHeaders(headers, { userToken: 't-1' })).toThrow(SecretInputMissingError);
  });

  it('reads secret inputs from writeOnly or format password, and splits run inputs into shown and sealed parts', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'string', writeOnly: true }, b: { type: 'string', format: 'password' }, c: { type: 'string' } },
    };
    expect(secretInputKeys(schema)).toEqual(['a', 'b']);
    expect(splitSecretInputs(schema, { a: 'x', c: 'y' })).toEqual({ shown: { a: '***', c: 'y' }, secrets: { a: 'x' } });
    expect(splitSecretInputs(undefined, { a: 'x' })).toEqual({ shown: { a: 'x' }, secrets: {} });
  });
});
