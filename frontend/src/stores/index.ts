export { AppState, getApp, setApp } from './app.svelte';
export { EntryCell, SessionStore, type Notice } from './session.svelte';
export { SessionsStore } from './sessions.svelte';
export { AgentsStore, type CheckState } from './agents.svelte';
export { SearchStore } from './search.svelte';
export { ToastStore, type Toast } from './toasts.svelte';
export { UiStore, type FocusTarget } from './ui.svelte';
