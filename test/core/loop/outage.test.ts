import { outageSign } from '../../../src/core/index.js';

/**
 * GitHub's own outage signs on a failed job, as GitHub Actions annotates the job: only its words,
 * on the workflow folder, at the failure level, from the start of the message.
 */
const own = (message: string) => ({ path: '.github', annotation_level: 'failure', message });

describe('outageSign', () => {
  test.each([
    'The hosted runner: GitHub Actions 2 lost communication with the server. Anything in your workflow that terminates the runner process, starves it for CPU/Memory, or blocks its network access can cause this error.',
    'The self-hosted runner lost communication with the server. Verify the machine is running and has a healthy network connection. Anything in your workflow that terminates the runner process, starves it for CPU/Memory, or blocks its network access can cause this error.',
    'The self-hosted runner: github-hetzner-runner-1 lost communication with the server. Verify the machine is running and has a healthy network connection.',
    'The runner has received a shutdown signal. This can happen when the runner service is stopped, or a manually started runner is canceled.',
    'The job was not acquired by Runner of type hosted even after multiple attempts',
    'GitHub Actions has encountered an internal error when running your job.',
  ])('GitHub’s own: %s', (message) => {
    expect(outageSign([own('Process completed with exit code 1.'), own(message)])).toBe(message);
  });

  test('anyone else’s words, elsewhere or at another level, are not', () => {
    const lost = own('The hosted runner: GitHub Actions 2 lost communication with the server.');
    expect(outageSign([own('Process completed with exit code 1.')])).toBeUndefined();
    // A project's step writing the same words on its own file, or as a warning.
    expect(outageSign([{ ...lost, path: 'src/server.ts' }])).toBeUndefined();
    expect(outageSign([{ ...lost, annotation_level: 'warning' }])).toBeUndefined();
    // Not from the start: a test that quotes it.
    expect(outageSign([own(`expected "${lost.message}"`)])).toBeUndefined();
    expect(outageSign([{ ...lost, message: null }])).toBeUndefined();
    expect(outageSign([])).toBeUndefined();
  });
});
