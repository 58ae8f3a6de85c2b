// What faces the client: the stdio pipe and streamable HTTP, behind one FrontConnection interface.
export { type FrontConnection, type FrontSendOptions, type JsonRpcMessage } from './_front.js';
export { startHttpFront, type HttpFront, type HttpFrontOptions } from './_http-front.js';
export { StdioFront, type StdioFrontOptions } from './_stdio-front.js';
