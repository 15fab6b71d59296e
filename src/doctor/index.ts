/**
 * `evaltrace/doctor`: checks an app's evaltrace setup and says what to fix. The same checks run
 * from the command line as `evaltrace doctor`. A subpath of its own, so that the main entry does
 * not load it.
 */
export { doctor } from "./doctor.js";
export { formatDoctorReport } from "./format.js";
export type { CheckName, DoctorFinding, DoctorOptions, DoctorReport, Severity, SpoolReading, SpoolInspector } from "./types.js";
export { CHECKS } from "./types.js";
