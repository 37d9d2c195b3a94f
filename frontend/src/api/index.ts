// The only door to Go. Stores import from here; components import stores.
export { ApiError, errorMessage } from './errors';
export { createClient, getClient, setClient, type Client } from './client';
export type { ConnectionState, Transport } from './transport';
export type * from './types';
export type * from './shared';
