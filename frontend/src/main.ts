import './app.css';
import { mount } from 'svelte';
import App from './components/App.svelte';

// `vite --mode mock` (npm run dev:mock): a fake Go side in the page.
if (import.meta.env.MODE === 'mock') await import('../dev/mock');

const target = document.getElementById('app');
if (!target) throw new Error('mnote: #app is missing from index.html');

export default mount(App, { target });
