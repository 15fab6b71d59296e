import events from "node:events";

export const EventEmitter = events.EventEmitter;
export default events;
