/** The Studio's Threads tab (issue 19): mounted by the Studio page with the deployment's SDK client. */
export { ThreadsPanel, type ThreadsPanelProps } from "./ThreadsPanel";
