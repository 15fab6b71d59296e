// Placeholder: the entry point is being written (issue 13/18); it exports nothing yet.
export {};
