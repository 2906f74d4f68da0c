/**
 * Field-level server errors for the forms: a 400 from the server lists each wrong field as
 * `{ path, code, message }` (domain/field-errors.ts, in the user's words); `fieldErrorsOf` keys
 * them by path, so a form marks the field itself, and `summarizeFieldErrors` names
 * the fields by their labels for a notification. For @mantine/form: `serverFormErrors`
 * puts a refused save's errors on the form's fields, `deferredValidator` checks a form against the
 * shared domain schema the server uses (schema-validator.ts), fetched after the screen has painted.
 * This module does not import zod: screens that only show server errors do not load it.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { FormErrors } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { fieldErrorsFrom, type FieldErrors, type FieldIssue } from '../../domain/field-errors';
import { ApiError } from './client';

export type { FieldErrors, FieldIssue } from '../../domain/field-errors';

/** The field problems of a failed save: a 400 ApiError's `fields`; [] for any other error. */
export function fieldIssuesOf(error: unknown): readonly FieldIssue[] {
  return error instanceof ApiError && error.status === 400 ? error.fields : [];
}

/**
 * The field errors of a failed save: for a 400 ApiError, the first problem of each field it names,
 * keyed by path; {} otherwise. `words` may reword a problem by its path and code (a form's own
 * 'Name is required'); undefined keeps the server's words.
 */
export function fieldErrorsOf(error: unknown, words?: (issue: FieldIssue) => string | undefined): FieldErrors {
  return fieldErrorsFrom(fieldIssuesOf(error).map((i) => ({ ...i, message: words?.(i) ?? i.message })));
}

/** The field errors of `error` for the given form fields only (the rest stay in the error's message). */
export function formErrorsOf(error: unknown, fields: readonly string[]): FieldErrors {
  return Object.fromEntries(Object.entries(fieldErrorsOf(error)).filter(([path]) => fields.includes(path)));
}

/**
 * A notification text for field errors: "Website URL: Must be a URL starting with http:// or
 * https://. Max requests per minute: Enter a whole number." with each path named by `labelOf`
 * (the path itself when it has no label).
 */
export function summarizeFieldErrors(errors: FieldErrors, labelOf: (path: string) => string | undefined): string {
  return Object.entries(errors)
    .map(([path, problem]) => `${labelOf(path) ?? path}: ${problem}.`)
    .join(' ');
}

/** The errors of a refused save (400) keyed by the form field `fieldOf` names for each path; {} for other errors. */
export function serverFormErrors(error: unknown, fieldOf: (path: string) => string = (path) => path, words?: (issue: FieldIssue) => string | undefined): FieldErrors {
  const out: FieldErrors = {};
  for (const [path, problem] of Object.entries(fieldErrorsOf(error, words))) {
    const field = fieldOf(path);
    if (!(field in out)) out[field] = problem;
  }
  return out;
}

/**
 * A refused save of a @mantine/form: the server's field errors go on their fields (`fieldOf` maps
 * a path to its field) and a 'Save failed' notification names them by `labelOf`, or gives the
 * error's own message when it names no field.
 */
export function showSaveErrors(form: { setErrors(errors: FormErrors): void }, error: Error, fieldOf: (path: string) => string, labelOf: (path: string) => string | undefined): void {
  const fields = serverFormErrors(error, fieldOf);
  form.setErrors(fields);
  const known = Object.keys(fields).length > 0;
  notifications.show({ color: 'red', title: 'Save failed', message: known ? summarizeFieldErrors(fields, labelOf) : error.message });
}

/** The longest of `fields` that is `path` or a prefix of it ('security.allowedDomains.2' -> 'security.allowedDomains'), else `path`. */
export function fieldAmong(fields: readonly string[], path: string): string {
  return fields.filter((f) => path === f || path.startsWith(`${f}.`)).sort((a, b) => b.length - a.length)[0] ?? path;
}

/** What useSchemaCheck needs of a `@mantine/form` form to check the fields changed so far. */
export interface RecheckableForm {
  getDirty(): Record<string, boolean>;
  validateField(path: string): unknown;
}

/** A form's validate function and the hook that fetches its check (see `deferredValidator`). */
export interface DeferredValidator<V> {
  /** The form's errors for `values`; {} until the check has arrived (the server checks every save anyway). */
  validate: (values: V) => FormErrors;
  /**
   * Fetches the check once the screen has painted and renders the screen again when it is in;
   * true from then on. Call it in the component that owns the form. With `form`, the fields the
   * user changed before the check arrived are checked when it does, so a value typed while it
   * loaded is marked at once rather than at its next keystroke.
   */
  useSchemaCheck: (form?: RecheckableForm) => boolean;
  /**
   * Wraps a form's submit handler (`form.onSubmit(...)`) so that it validates with the check:
   * a save asked for before the check has arrived (Enter right after the screen loaded, on a
   * slow network) waits for it, so a wrong value is marked by the form instead of refused by the
   * server; if the check cannot load, the save goes on and the server checks it.
   */
  submitChecked: (submit: (event?: FormEvent<HTMLFormElement>) => void) => (event: FormEvent<HTMLFormElement>) => void;
}

/**
 * A `@mantine/form` validate function whose check against the shared domain schemas
 * (`schemaValidator` in schema-validator.ts) is a chunk of its own, fetched after the screen's
 * first paint: zod and the schemas are about 30 KB gzipped, which the editing screens'
 * first load cannot carry within its 200 KB, and nothing is checked before the first edit anyway.
 * `load` imports the screen's schema module and returns its validate function.
 */
export function deferredValidator<V>(load: () => Promise<(values: V) => FormErrors>): DeferredValidator<V> {
  let check: ((values: V) => FormErrors) | undefined;
  let pending: Promise<void> | undefined;
  const start = () =>
    (pending ??= load().then((c) => {
      check = c;
    }));
  return {
    validate: (values) => check?.(values) ?? {},
    submitChecked: (submit) => (event) => {
      if (check) return submit(event);
      event.preventDefault();
      void start()
        .catch(() => undefined)
        .then(() => submit());
    },
    useSchemaCheck(form) {
      const [ready, setReady] = useState(() => check !== undefined);
      const arrivedLate = useRef(!ready);
      useEffect(() => {
        if (!ready || !form || !arrivedLate.current) return;
        arrivedLate.current = false;
        for (const [path, dirty] of Object.entries(form.getDirty())) if (dirty) form.validateField(path);
      }, [ready, form]);
      useEffect(() => {
        if (ready) return;
        let live = true;
        start().then(
          () => live && setReady(true),
          (error: unknown) => console.error('Form check failed to load', error),
        );
        return () => {
          live = false;
        };
      }, [ready]);
      return ready;
    },
  };
}
