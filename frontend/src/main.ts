import './app.css';
import { mount } from 'svelte';
import App from './components/App.svelte';
import { getApp } from './stores';

// `vite --mode mock` (npm run dev:mock): a fake Go side in the page.
if (import.meta.env.MODE === 'mock') await import('../dev/mock');

const target = document.getElementById('app');
if (!target) throw new Error('mnote: #app is missing from index.html');

// The app's first calls (the sessions, the agents, the folder and its
// tree) go out before the page builds itself, so that Go answers them
// meanwhile: building the page takes the main thread for a few hundred
// milliseconds, and calls made from it waited for the end (a tree of
// 10,000 notes showed that much later).
// (A task boundary after the token: the browser sends a fetch from a task
// of its own, which would otherwise wait for the build.)
const app = getApp();
await app.client.ready();
await new Promise((r) => setTimeout(r, 0));

export default mount(App, { target });
