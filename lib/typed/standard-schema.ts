// The Standard Schema v1 interface (https://standardschema.dev), vendored:
// zod, valibot, arktype and other libraries implement it, and a typed task
// takes any of them without rescue-engine depending on one. This is the
// part of `@standard-schema/spec` the engine reads, with its names flattened
// (the package declares them in a namespace).

/** StandardSchemaV1 is a schema of any library that implements Standard Schema v1. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaProps<Input, Output>;
}

/** StandardSchemaProps are the properties under a schema's `~standard` key. */
export interface StandardSchemaProps<Input = unknown, Output = Input> {
  readonly version: 1;
  readonly vendor: string;
  readonly validate: (
    value: unknown,
  ) => StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>;
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
}

/** StandardSchemaResult is what `validate` answers: the value, or the issues. */
export type StandardSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly StandardSchemaIssue[] };

/** StandardSchemaIssue is one reason a value was refused. */
export interface StandardSchemaIssue {
  readonly message: string;
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
}
