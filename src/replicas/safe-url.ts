/** A Redis URL without its password, for messages and logs. */
export const safeUrl = (url: string): string => url.replace(/\/\/([^@/]*)@/, (_, auth: string) => `//${auth.split(':')[0] ?? ''}:***@`);
