/** Token usage, in the providers' words (`src/providers/vocabulary.ts`), which the agent sums. */
export { addUsage, emptyUsage, type Usage } from '../providers/vocabulary';
