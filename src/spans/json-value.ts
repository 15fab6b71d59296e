/** A JSON value: what every captured input, output and metadata becomes before it is stored. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
