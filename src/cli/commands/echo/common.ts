/** Shared bits of the echo commands: the API base URL and stdin input. */
import type { Context } from '../../context.js';
import { requireSetting, type ProfileSettings } from '../../../core/config/settings.js';

export async function echoProfile(ctx: Context): Promise<{ name: string; settings: ProfileSettings; baseUrl: string }> {
  const { name, settings } = await ctx.profile();
  return { name, settings, baseUrl: requireSetting(settings, 'echo.baseUrl', name) };
}
