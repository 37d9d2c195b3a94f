// Types of the app API (app/API.md) and of Go's thread package
// (thread/thread.go) as the UI receives them. JSON, camelCase. Fields Go
// tags `omitempty` are optional here.
//
// They live by area in types/; every importer takes them from here.

export type * from './types/agents';
export type * from './types/sessions';
export type * from './types/thread';
export type * from './types/workspace';
export type * from './types/events';
export type * from './types/sync';
export type * from './types/errors';
