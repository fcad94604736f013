export class FormatError extends Error {}
