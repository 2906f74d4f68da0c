/** Validation messages in the user's words. */
import { describe, expect, it } from 'vitest';
import { inUserWords, parseFieldErrors } from './field-errors';

describe('inUserWords', () => {
  it.each([
    ['Invalid input: expected int, received number', 'Enter a whole number'],
    ['Invalid input: expected number, received string', 'Enter a number'],
    ['Too big: expected number to be <=1000', 'Must be at most 1,000'],
    ['Too small: expected number to be >=10', 'Must be at least 10'],
    ['Too big: expected string to have <=20000 characters', 'At most 20,000 characters'],
    ['Too small: expected string to have >=1 characters', 'Required'],
    ['is required', 'Required'],
    ['Invalid option: expected one of "active"|"inactive"', 'Choose one of the listed options'],
    ['srpHeaderDesktop width must be 100-3000', 'Must be 100-3000'],
    ['must be a URL starting with http:// or https://', 'Must be a URL starting with http:// or https://'],
    ['must be at least 1 MB', 'Must be at least 1 MB'],
  ])('%s -> %s', (message, words) => {
    expect(inUserWords(message)).toBe(words);
  });
});

describe('parseFieldErrors', () => {
  it('splits a server message into field paths, first problem per field', () => {
    expect(
      parseFieldErrors('security.maxRequestsPerMinute: Invalid input: expected int, received number; websiteUrl: must be a URL starting with http:// or https://; websiteUrl: Too big: expected string to have <=2048 characters'),
    ).toEqual({
      'security.maxRequestsPerMinute': 'Enter a whole number',
      websiteUrl: 'Must be a URL starting with http:// or https://',
    });
  });
  it('names no field for a message without paths', () => {
    expect(parseFieldErrors('Dealer not found')).toEqual({});
    expect(parseFieldErrors('Nothing to save: send at least one section')).toEqual({});
  });
});
