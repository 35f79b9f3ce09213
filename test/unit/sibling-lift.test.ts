import { describe, expect, it } from 'vitest';
import { CALIBRATION, SENTENCE_CALIBRATION } from '../../src/domain/search/calibration.js';
import { querySignals, rankCandidates } from '../../src/domain/search/rank.js';
import { rankedListing as listing } from '../helpers/ranking.js';

// three listings of the paraphrase set's catalogue (test/bench/relevance-paraphrase-set.ts) with
// the lexical and vector signals the relevance bench gives them for the query below
const ENV_LOADER = listing(
  'env-config',
  'Typed environment variable loader',
  'TypeScript, zod',
  'Reads process.env and .env files, validates every setting against a schema at startup and fails fast with a clear message.',
  0,
  0.342,
);
const YAML_READER = listing(
  'yaml-config',
  'Layered YAML configuration reader',
  'Python, PyYAML',
  'Merges default, environment and local YAML files with overrides from variables and validates the result.',
  0,
  0.25,
);
const YAML_LINT = listing(
  'yaml-lint',
  'YAML schema validator',
  'Go',
  'Checks YAML documents against a JSON Schema and reports every violation with file, line and column.',
  0.462,
  0.586,
);
const NEED =
  "check my config documents follow the agreed structure and point to the exact line that's wrong";

// the query's signals in that catalogue (loadQuerySignals: each known word's IDF, and the share
// of the query's IDF the catalogue knows); the listings' lexical signals above are before that share
const QUERY = {
  ...querySignals(
    NEED,
    new Map([
      ['line', 2.65],
      ['check', 2.817],
      ['documents', 3.269],
      ['follow', 4.116],
    ]),
  ),
  known: 0.3423,
};

describe('siblings told apart by their descriptions (stop 49)', () => {
  const ranking = (c = CALIBRATION) =>
    rankCandidates(QUERY, [ENV_LOADER, YAML_READER, YAML_LINT], 'fused', c).map((r) => r.row.id);

  it('puts first the close sibling whose description holds the words the others lack', () => {
    // without the lift the env loader leads on its title's concept; only the validator's
    // description speaks of documents and the line that is wrong
    // (stop 54's whole-query neighbours held off for the control)
    expect(ranking({ ...CALIBRATION, siblingLift: 0, conceptNeighbours: 0 })[0]).toBe('env-config');
    expect(ranking()[0]).toBe('yaml-lint');
  });

  it('leaves a clear match alone and is off for the sentence option', () => {
    // two validators, both a clear match (similarity 5); only one description holds "payloads":
    // their order and scores stay the task score's, as without the lift
    const JSON_LINT = listing(
      'json-lint',
      'JSON schema validator',
      'TypeScript, ajv',
      'Validates JSON payloads against a schema and lists each error path.',
      0.462,
      0.586,
    );
    const q = querySignals('schema validator for payloads');
    const order = (c = CALIBRATION) =>
      rankCandidates(q, [JSON_LINT, YAML_LINT], 'fused', c).map((r) => [r.row.id, r.score]);
    expect(order()).toEqual(order({ ...CALIBRATION, siblingLift: 0 }));
    expect(SENTENCE_CALIBRATION.siblingLift).toBe(0);
  });
});
