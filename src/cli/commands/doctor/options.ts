/** Options of `lanyard doctor`, shared by the command declaration and its run module. */

export interface DoctorOptions {
  /** The time limit of each check (a duration: 10s, 1m). */
  checkTimeout?: string;
}
