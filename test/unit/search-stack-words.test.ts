import { describe, expect, it } from 'vitest';
import {
  listedStacks,
  listingStacks,
  namedStacks,
  stackMatch,
  taskText,
} from '../../src/domain/search/stacks.js';

const go = listedStacks('Go');
const names = (q: string) => namedStacks(q);

/**
 * Stop 59: a stack name that a query uses as an English word is not a stack there, and stays a
 * word of the task; the same word with a stack's neighbours is still the stack. Each rule of
 * ENGLISH_READINGS both ways (sentences of their own, not the judgment sets' queries).
 */
describe('stack names read as English by their neighbours', () => {
  it('reads "a go" as a try where the clause ends, and "a go service" as Go', () => {
    expect(names('retry the upload and have another go')).toEqual([]);
    expect(names('on the go invoice scanner')).toEqual([]);
    expect(names('another go at parsing it')).toEqual([]);
    expect(names('give it a go later today')).toEqual([]);
    expect(names('a go service for invoices')).toEqual(go);
    expect(names('another go library for dates')).toEqual(go);
    expect(names('the go runtime metrics')).toEqual(go);
  });

  it('reads "go" before a particle or a state as the verb, elsewhere as Go', () => {
    expect(names('go through the logs every night')).toEqual([]);
    expect(names('alert me when jobs go missing')).toEqual([]);
    expect(names('roll back when a deploy goes wrong or builds go stale')).toEqual([]);
    expect(names('jwt authentication in go')).toEqual(go);
    expect(names('written in go, for invoices')).toEqual(go);
    expect(names('golang command line flags')).toEqual(go);
    // decided: a port's target is the stack ("ready to go" pays a stack preference)
    expect(names('port it to go')).toEqual(go);
  });

  it('reads a capitalised name inside a sentence as the stack whatever follows', () => {
    expect(names('have another Go at it')).toEqual(go);
    expect(names('a CLI that we could Go through')).toEqual(go);
    // at the start of a query or after a clause mark a capital says nothing
    expect(names('Go through every row of the export')).toEqual([]);
    expect(names('csv: Go through every row')).toEqual([]);
  });

  it('reads "react to" and "react when" as the verb, "react app" as React', () => {
    const react = listedStacks('React');
    expect(names('react to new orders in the shop')).toEqual([]);
    expect(names('react when a payment fails')).toEqual([]);
    expect(names('react quickly to outages')).toEqual([]);
    expect(names('react app')).toEqual(react);
    expect(names('react hooks for forms')).toEqual(react);
    expect(names('React on Rails starter')).toEqual([...react, ...listedStacks('Rails')]);
  });

  it('reads "express delivery" and "express interest" as English, "express middleware" as Express', () => {
    const express = listedStacks('Express');
    expect(names('quote express delivery prices')).toEqual([]);
    expect(names('let visitors express interest in a product')).toEqual([]);
    expect(names('express middleware for sessions')).toEqual(express);
    expect(names('jwt auth for express')).toEqual(express);
  });

  it('reads the season, the payment, the adjective and the bottle as English', () => {
    expect(names('spring cleaning of old branches')).toEqual([]);
    expect(names('spring boot rest service')).toEqual(listedStacks('Spring'));
    expect(names('not shell out for a big plan')).toEqual([]);
    expect(names('shell script backups')).toEqual(listedStacks('Bash'));
    expect(names('send a swift reply to support mail')).toEqual([]);
    expect(names('swift package for charts')).toEqual(listedStacks('Swift'));
    expect(names('a flask of coffee counter')).toEqual([]);
    expect(names('rate limiting for flask')).toEqual(listedStacks('Flask'));
  });
});

describe('one reading for the stacks and the task', () => {
  it('keeps an English-read name as a task word, and drops it where it is the stack', () => {
    expect(taskText('react to new orders')).toBe('react new orders');
    expect(taskText('retry failed calls and have another go')).toBe(
      'retry failed calls another go',
    );
    expect(taskText('react hooks for forms')).toBe('hooks forms');
    expect(taskText('retry failed calls in go')).toBe('retry failed calls');
  });

  it('reads listings and the tech_stack filter as lists: every name a stack', () => {
    // a tech_stack is a list, not a sentence: "Go" or "Express" there is always the stack
    expect(listedStacks('Go, Express')).toEqual([...go, ...listedStacks('Express')]);
    expect(listingStacks('go').has(go[0]!)).toBe(true);
    expect(stackMatch(names('have another go'), 'Go, Redis')).toBe(1);
    expect(stackMatch(names('retry failed calls in go'), 'TypeScript')).toBe(0);
  });
});
