import { ProbotOctokit } from 'probot';
import { pinApiVersion } from '../github/client.js';

/** Probot's Octokit (auth, retry, throttling, config) with the API version pinned. */
export const LoopOctokit: typeof ProbotOctokit = ProbotOctokit.plugin(pinApiVersion);
