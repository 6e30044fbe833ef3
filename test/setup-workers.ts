/** Runs in every workers test file: no call of the Worker leaves work running past its test. */
import { afterEach } from 'vitest';
import { settleWorkerCalls } from './helpers/api';

afterEach(settleWorkerCalls);
