/**
 * A page or a search service that could not be read, in one line that names it: the chat's tools give
 * it to the model as their result's text, `agent read` prints it, research notes it beside the source.
 */
export class WebError extends Error {}
