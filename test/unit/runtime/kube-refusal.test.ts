// Which API errors are refusals a status reports (controller/runtime/kube.ts, `apiRefusal`): the code and the API
// server's own message, as the client hands them over (the Status body as text).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiException } from '@kubernetes/client-node';
import { apiRefusal } from '../../../controller/runtime/kube.js';

const status = (code: number, message: string) =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, code });

const forbidden =
  'pods "demo-0" is forbidden: error looking up service account ns/demo-backup: serviceaccount "demo-backup" not found';

describe('apiRefusal', () => {
  const cases: [string, unknown, ReturnType<typeof apiRefusal>][] = [
    [
      '403 with a Status body (text): its message',
      new ApiException(403, 'Unknown API Status Code!', status(403, forbidden), {}),
      { code: 403, message: forbidden },
    ],
    [
      '422 with a Status body (object): its message',
      new ApiException(422, 'Unknown API Status Code!', { message: 'Pod "demo-0" is invalid: spec' }, {}),
      { code: 422, message: 'Pod "demo-0" is invalid: spec' },
    ],
    [
      '400 with a body that is not JSON: the error message up to its first line',
      new ApiException(400, 'Bad Request', 'not json', {}),
      { code: 400, message: 'HTTP-Code: 400' },
    ],
    [
      "409 (a conflict: the moment's, retried)",
      new ApiException(409, 'Conflict', status(409, 'x'), {}),
      undefined,
    ],
    ['404 (not found)', new ApiException(404, 'Not Found', status(404, 'x'), {}), undefined],
    ['429 (throttled)', new ApiException(429, 'Too Many Requests', status(429, 'x'), {}), undefined],
    ['500 (a server error)', new ApiException(500, 'Internal Server Error', status(500, 'x'), {}), undefined],
    ['a network error', new Error('connect ECONNREFUSED 127.0.0.1:6443'), undefined],
    [
      "an error wrapping refused writes (several sent at once): its own message, its cause's code",
      new Error('2 of 3 writes refused: a | b', {
        cause: new ApiException(403, 'Unknown API Status Code!', status(403, forbidden), {}),
      }),
      { code: 403, message: '2 of 3 writes refused: a | b' },
    ],
  ];
  for (const [title, error, expected] of cases)
    it(`GIVEN ${title} THEN ${expected ? `refusal ${expected.code}` : 'not a refusal'}`, () => {
      assert.deepEqual(apiRefusal(error), expected);
    });
});
