export { type FrontConnection, type FrontSendOptions, type JsonRpcMessage } from './_front.js';
export { startHttpFront, type HttpFront, type HttpFrontOptions } from './_http-front.js';
